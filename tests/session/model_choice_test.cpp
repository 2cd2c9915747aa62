// /model without an actor: preset lookup, the listing and the switch.
#include <doctest/doctest.h>

#include "actors/session/commands.hpp"
#include "actors/session/model_choice.hpp"

using namespace nb;

namespace {

settings with_presets() {
  settings s;
  s.agent.model = "base-model";
  s.agent.provider = "openrouter";
  model_preset fast;
  fast.model = "fast-model";
  fast.max_tokens = 1024;
  fast.context_window_tokens = 16000;
  s.model_presets["Fast"] = fast;
  model_preset deep;
  deep.model = "deep-model";
  deep.provider = "anthropic";
  s.model_presets["deep"] = deep;
  return s;
}

/// Plays the session's part: shows the command the current choice and
/// applies the switch its reply asks for.
struct fixture {
  model_catalog catalog = make_model_catalog(with_presets());
  std::string preset;
  std::string model = "base-model";

  command_reply run(const std::string& text, bool busy = false) {
    command_context ctx;
    ctx.models = &catalog;
    ctx.preset = preset;
    ctx.model = model;
    ctx.busy = busy;
    auto cmd = parse_command(text);
    REQUIRE(cmd.spec != nullptr);
    auto reply = run_command(cmd, ctx);
    // The command itself changes nothing it was shown.
    CHECK(ctx.preset == preset);
    CHECK(ctx.model == model);
    if (reply.switch_preset) {
      preset = *reply.switch_preset;
      model = runtime_for(catalog, preset).model;
    }
    return reply;
  }
};

} // namespace

TEST_CASE("model choice: presets are found case-insensitively") {
  auto c = make_model_catalog(with_presets());
  CHECK(find_preset(c, "fast") == "Fast");
  CHECK(find_preset(c, "DEEP") == "deep");
  CHECK(find_preset(c, "Default") == "default");
  CHECK(find_preset(c, "nope").empty());
  CHECK(closest_preset(c, "deeep") == "deep");
  CHECK(closest_preset(c, "defualt") == "default");
  CHECK(closest_preset(c, "zzzzzzzz").empty());
  auto rt = runtime_for(c, "deep");
  CHECK(rt.preset == "deep");
  CHECK(rt.model == "deep-model");
  CHECK(rt.provider == "anthropic");
  auto d = runtime_for(c, "");
  CHECK(d.preset.empty());
  CHECK(d.model == "base-model");
  CHECK(d.provider == "openrouter");
}

TEST_CASE("model choice: /model switches and reports what changed") {
  fixture f;
  auto r = f.run("/model fast");
  REQUIRE(r.switch_preset.has_value());
  CHECK(*r.switch_preset == "Fast");
  CHECK(f.preset == "Fast");
  CHECK(f.model == "fast-model");
  CHECK(r.text == "Switched this chat to preset Fast: fast-model (provider "
                  "auto, context 16.0k, up to 1024 output tokens).");
  auto busy = f.run("/model deep", true);
  CHECK(f.preset == "deep");
  CHECK(busy.text.find("The running task keeps its model") != std::string::npos);
  auto back = f.run("/model default");
  REQUIRE(back.switch_preset.has_value());
  CHECK(back.switch_preset->empty());
  CHECK(f.preset.empty());
  CHECK(f.model == "base-model");
  CHECK_FALSE(f.run("/model default").switch_preset.has_value());
  auto unknown = f.run("/model fats");
  CHECK_FALSE(unknown.switch_preset.has_value());
  CHECK(unknown.text == "Unknown model preset \"fats\". Did you mean \"Fast\"? "
                        "Available: default, Fast, deep.");
  CHECK(f.preset.empty());
}

TEST_CASE("model choice: the default row names agents.defaults.modelPreset") {
  auto s = with_presets();
  s.agent.model_preset = "deep";
  fixture f;
  f.catalog = make_model_catalog(s);
  auto r = f.run("/model");
  CHECK(r.text.find("preset default (agents.defaults.modelPreset \"deep\")")
        != std::string::npos);
  CHECK(r.text.find("• default — base-model (provider openrouter") != std::string::npos);
}
