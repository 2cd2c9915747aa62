#include "actors/channels/websocket/setup_api.hpp"

#include <cctype>
#include <optional>

#include <caf/actor_system.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/websocket/api_util.hpp"
#include "actors/common/log.hpp"
#include "actors/provider/provider_probe.hpp"
#include "actors/provider/provider_registry.hpp"
#include "config/config_save.hpp"
#include "config/json_edit.hpp"
#include "config/keys.hpp"
#include "config/provider_edit.hpp"
#include "messages/provider_admin.hpp"

namespace nb::ws {

namespace {

using nlohmann::json;

using config_json::loose;

/// providers.<name> of the raw file (keys as the user wrote them).
const json* file_provider(const json& root, std::string_view name) {
  if (!root.is_object())
    return nullptr;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (!config::key_matches(it.key(), "providers") || !it->is_object())
      continue;
    for (auto p = it->begin(); p != it->end(); ++p)
      if (loose(p.key()) == loose(name) && p->is_object())
        return &*p;
  }
  return nullptr;
}

std::string file_string(const json* obj, const char* camel) {
  if (!obj)
    return {};
  for (auto it = obj->begin(); it != obj->end(); ++it)
    if (config::key_matches(it.key(), camel) && it->is_string())
      return it->get<std::string>();
  return {};
}

json registry_rows(const std::string& config_text) {
  auto root = json::parse(config_text, nullptr, false);
  json rows = json::array();
  for (const auto& spec : provider_table()) {
    if (!spec.unsupported.empty())
      continue;
    auto* mine = file_provider(root, spec.name);
    bool custom = spec.name == "custom";
    rows.push_back(
      {{"name", spec.name},
       {"display", custom ? "OpenAI-compatible server" : spec.display},
       {"default_base", spec.default_base},
       {"needs_base", spec.default_base.empty()},
       {"needs_key", spec.kind == provider_kind::standard
                       || spec.kind == provider_kind::gateway},
       {"key_set", !file_string(mine, "apiKey").empty()
                     || (!spec.env_key.empty()
                         && !process_env(spec.env_key).empty())},
       {"api_base", file_string(mine, "apiBase")}});
  }
  return rows;
}

struct candidate {
  std::string text; ///< the config with the form applied
  provider_choice choice;
};

/// The form applied to the config file, read back by the loader: errors
/// name the key, keys come from the file or the environment when the form
/// has none.
std::variant<candidate, std::string>
make_candidate(const std::string& config_path, const std::string& current,
               const json& form, bool need_model) {
  auto field = [&](const char* k) {
    return form.contains(k) && form[k].is_string() ? form[k].get<std::string>()
                                                   : std::string{};
  };
  provider_setup s{field("provider"), field("api_base"), field("api_key"),
                   field("model")};
  if (s.provider != "custom" && !find_provider_spec(s.provider))
    return "agents.defaults.provider: \"" + s.provider
           + "\" is not a provider this gateway knows";
  if (auto* spec = find_provider_spec(s.provider);
      spec && !spec->unsupported.empty())
    return "agents.defaults.provider: " + std::string{spec->unsupported};
  if (s.model.empty() && !need_model)
    s.model = "-"; // listing models needs none
  auto edited = apply_provider_setup(current, s);
  if (auto* e = std::get_if<config_error>(&edited))
    return e->message();
  candidate out;
  out.text = std::move(std::get<std::string>(edited));
  auto loaded = parse_settings(out.text, config_path);
  if (auto* e = std::get_if<config_error>(&loaded))
    return e->message();
  out.choice = choose_provider(std::get<loaded_settings>(loaded).value);
  return out;
}

api_reply list(const std::string& config_path, const json& form) {
  auto c = make_candidate(config_path, read_file_text(config_path), form,
                          false);
  if (auto* e = std::get_if<std::string>(&c))
    return problem(400, *e);
  auto listed = list_models(std::get<candidate>(c).choice, probe_options());
  if (!listed.error.empty())
    return answer(200, json{{"models", json::array()},
                            {"error", listed.error}});
  return answer(200, json{{"models", listed.models}});
}

api_reply test(const std::string& config_path, const json& form) {
  auto c =
    make_candidate(config_path, read_file_text(config_path), form, true);
  if (auto* e = std::get_if<std::string>(&c))
    return problem(400, *e);
  auto& choice = std::get<candidate>(c).choice;
  if (!choice.ready())
    return answer(200, json{{"ok", false}, {"error", choice.problem}});
  auto out = probe_model(choice, probe_options());
  if (!out.ok)
    return answer(200, json{{"ok", false}, {"error", out.error}});
  return answer(200, json{{"ok", true},
                          {"answer", out.answer},
                          {"latency_ms", out.latency_ms}});
}

api_reply save(caf::actor_system& sys, const std::string& config_path,
               const json& form) {
  std::lock_guard<std::mutex> one_edit{config_edit_mutex()};
  // Made again from the file when it changed before the save (a hand
  // edit): the provider goes on top of it, neither is lost.
  std::optional<candidate> made;
  std::optional<api_reply> refused;
  auto w = edit_config_file(
    config_path, [&](const std::string& current) -> std::optional<std::string> {
      auto c = make_candidate(config_path, current, form, true);
      if (auto* e = std::get_if<std::string>(&c)) {
        refused = problem(400, *e);
        return std::nullopt;
      }
      made = std::move(std::get<candidate>(c));
      if (!made->choice.ready()) {
        refused = problem(400, made->choice.problem);
        return std::nullopt;
      }
      if (!find_supervisor(sys)) {
        refused = problem(409, "this process runs no gateway supervisor to "
                               "apply the provider to");
        return std::nullopt;
      }
      return made->text;
    });
  if (refused)
    return std::move(*refused);
  if (w.outcome != write_outcome::written)
    return problem(500, w.error);
  auto& cand = *made;
  log::get("channels")->info("WebUI setup: provider {} saved to {}",
                             cand.choice.name, config_path);
  auto failed = apply_provider(sys, cand.text, config_path);
  if (!failed.empty())
    return problem(500, "saved to " + config_path
                          + ", but the gateway did not take it: " + failed);
  auto status = live_provider_status(sys);
  return answer(200, json{{"ok", true}, {"status", status}});
}

} // namespace

std::optional<api_reply> setup_api(caf::actor_system& sys,
                                   const std::string& config_path,
                                   const api_call& call) {
  if (call.name != "setup" && call.name != "setup/models"
      && call.name != "setup/test")
    return std::nullopt;
  if (call.name == "setup" && call.method == "GET") {
    auto out = live_provider_status(sys);
    out["providers"] = registry_rows(read_file_text(config_path));
    return answer(200, out);
  }
  bool put = call.name == "setup" && call.method == "PUT";
  bool post = call.name != "setup" && call.method == "POST";
  if (!put && !post)
    return problem(405, call.name == "setup" ? "GET or PUT only"
                                             : "POST only");
  auto form = json::parse(call.body, nullptr, false);
  if (!form.is_object())
    return problem(400, "expected a JSON object");
  try {
    if (put)
      return save(sys, config_path, form);
    if (call.name == "setup/models")
      return list(config_path, form);
    return test(config_path, form);
  } catch (const std::exception& e) {
    return problem(500, e.what());
  }
}

} // namespace nb::ws
