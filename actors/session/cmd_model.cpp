// /model [preset]: lists agents.modelPresets with the chat's current one
// marked, or switches this chat to a preset ("default" = agents.defaults).
// The reply carries the switch; the session applies it to its next turn and
// records it in the session file's metadata.
#include "actors/session/commands.hpp"

#include <cstdio>

namespace nb {

namespace {

std::string tokens(int64_t n) {
  if (n < 1000)
    return std::to_string(n);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fk", static_cast<double>(n) / 1000);
  return buf;
}

std::string describe(const model_runtime& rt) {
  return rt.model + " (provider " + rt.provider + ", context "
         + tokens(rt.context_window_tokens) + ", up to "
         + std::to_string(rt.max_tokens) + " output tokens)";
}

std::string shown_name(const model_catalog& c, const std::string& preset) {
  if (!preset.empty())
    return preset;
  return c.defaults_preset.empty()
           ? std::string{"default"}
           : "default (agents.defaults.modelPreset \"" + c.defaults_preset
               + "\")";
}

std::string available(const model_catalog& c) {
  std::string out = "default";
  for (auto& [name, _] : c.presets)
    out += ", " + name;
  return out;
}

std::string listing(const model_catalog& c, const std::string& current) {
  auto now = runtime_for(c, current);
  std::string out = "🧠 Model: " + now.model + " — preset "
                    + shown_name(c, current) + "\nPresets:";
  auto line = [&](const std::string& name, const model_runtime& rt,
                  bool is_current) {
    out += "\n• " + name + " — " + describe(rt);
    if (is_current)
      out += " ← current";
  };
  line("default", c.defaults, current.empty());
  for (auto& [name, _] : c.presets)
    line(name, runtime_for(c, name), name == current);
  if (c.presets.empty())
    out += "\n(no agents.modelPresets configured: only the default)";
  out += "\nSwitch with /model <preset>; /model default goes back to "
         "agents.defaults.";
  return out;
}

} // namespace

command_reply cmd_model(command_context& ctx) {
  if (!ctx.models)
    return {"Model presets are not available in this chat."};
  const auto& c = *ctx.models;
  if (ctx.args.empty())
    return {listing(c, ctx.preset)};
  if (ctx.args.find_first_of(" \t\r\n") != std::string::npos)
    return {"Usage: /model [preset] — one preset name (" + available(c)
            + ")."};
  auto name = find_preset(c, ctx.args);
  if (name.empty()) {
    std::string out = "Unknown model preset \"" + ctx.args + "\".";
    if (auto close = closest_preset(c, ctx.args); !close.empty())
      out += " Did you mean \"" + close + "\"?";
    return {out + " Available: " + available(c) + "."};
  }
  auto target = name == "default" ? std::string{} : name;
  auto rt = runtime_for(c, target);
  if (target == ctx.preset)
    return {"This chat already uses preset " + shown_name(c, target) + ": "
            + describe(rt) + "."};
  std::string out = "Switched this chat to preset " + shown_name(c, target)
                    + ": " + describe(rt) + ".";
  if (ctx.busy)
    out += " The running task keeps its model; your next message uses "
           "the new one.";
  command_reply reply{out};
  reply.switch_preset = target;
  return reply;
}

} // namespace nb
