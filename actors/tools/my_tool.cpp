// my: the agent's look at its own settings, as the original's MyTool gives
// it (agent/tools/self.py): `check` without a key lists the overview,
// `check` with a dot path drills in, `request.*` is the turn's routing.
// The view is the turn (model, preset, iteration, usage, tool names, from
// the runner) over the settings (my_settings_view); infrastructure and
// anything named like a secret are refused by name, and no secret is ever
// put into the view. `set` is refused as the original refuses it by
// default (tools.my.allowSet false).
#include <set>

#include "actors/common/log.hpp"
#include "actors/common/strings.hpp"
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/my_format.hpp"

namespace nb {

namespace {

using ojson = nlohmann::ordered_json;

// The original's lists, by name.
const std::set<std::string> my_blocked{"bus",
                                       "provider",
                                       "runtime_resolver",
                                       "_running",
                                       "tools",
                                       "_runtime_vars",
                                       "runner",
                                       "sessions",
                                       "consolidator",
                                       "dream",
                                       "auto_compact",
                                       "context",
                                       "commands",
                                       "_pending_queues",
                                       "_session_locks",
                                       "_active_tasks",
                                       "_background_tasks",
                                       "restrict_to_workspace",
                                       "channels_config",
                                       "_concurrency_gate",
                                       "_unified_session",
                                       "_extra_hooks",
                                       "_hook_factories"};
const std::set<std::string> my_sensitive{
  "api_key",     "secret",       "password",      "token", "credential",
  "private_key", "access_token", "refresh_token", "auth"};
const std::set<std::string> my_denied_attrs{
  "__class__",  "__dict__",    "__bases__",    "__subclasses__", "__mro__",
  "__init__",   "__new__",     "__reduce__",   "__getstate__",   "__setstate__",
  "__del__",    "__call__",    "__getattr__",  "__setattr__",    "__delattr__",
  "__code__",   "__globals__", "func_globals", "func_code",      "__wrapped__",
  "__closure__"};

std::vector<std::string> my_split(const std::string& path) {
  std::vector<std::string> parts{""};
  for (char c : path)
    if (c == '.')
      parts.emplace_back();
    else
      parts.back() += c;
  return parts;
}

bool my_denied(const std::string& part) {
  return my_denied_attrs.count(part) || part.rfind("__", 0) == 0;
}

/// The original's RuntimeSnapshot.as_mapping, from the turn over the
/// settings.
ojson my_snapshot(const tool_context& ctx, const ojson& turn) {
  auto& base = ctx.my_settings;
  auto pick = [&](const char* key) {
    if (turn.is_object() && turn.contains(key))
      return turn[key];
    return base.is_object() && base.contains(key) ? base[key] : ojson(nullptr);
  };
  auto iteration = pick("current_iteration");
  if (iteration.is_null())
    iteration = 0;
  auto usage = pick("last_usage");
  ojson snap;
  snap["model"] = pick("model");
  snap["model_preset"] = pick("model_preset");
  snap["model_presets"] = base.value("model_presets", ojson::object());
  snap["max_iterations"] = pick("max_iterations");
  snap["context_window_tokens"] = pick("context_window_tokens");
  snap["workspace"] = ctx.workspace;
  snap["provider_retry_mode"] = base.value("provider_retry_mode", "standard");
  snap["max_tool_result_chars"] = pick("max_tool_result_chars");
  snap["current_iteration"] = iteration;
  snap["_current_iteration"] = iteration;
  snap["tool_names"] =
    pick("tool_names").is_array() ? pick("tool_names") : ojson::array();
  snap["web_config"] = base.value("web_config", ojson::object());
  snap["exec_config"] = base.value("exec_config", ojson::object());
  snap["subagents"] = {{"_task_statuses", ojson::object()}};
  snap["_last_usage"] = usage.is_object() ? usage : ojson::object();
  return snap;
}

/// _format_value with the two shapes the original prints its own way: the
/// workspace is a Path, the subagents hold their statuses.
std::string my_line(const ojson& v, const std::string& key) {
  if (key == "workspace" && v.is_string())
    return key + ": PosixPath(" + py_repr(v) + ")";
  if (v.is_object() && v.size() == 1 && v.contains("_task_statuses"))
    return my_format_value(v["_task_statuses"], key);
  return my_format_value(v, key);
}

std::string my_overview(const ojson& snap) {
  std::string out;
  for (auto* k :
       {"max_iterations", "context_window_tokens", "model", "model_preset",
        "workspace", "provider_retry_mode", "max_tool_result_chars",
        "_current_iteration", "web_config", "exec_config", "subagents"})
    out += (out.empty() ? "" : "\n") + my_line(snap[k], k);
  if (!snap["_last_usage"].empty())
    out += "\n" + my_line(snap["_last_usage"], "_last_usage");
  return out;
}

tool_output my_check(const std::string& key, const tool_context& ctx,
                     const ojson& turn) {
  auto snap = my_snapshot(ctx, turn);
  if (key.empty())
    return {my_overview(snap), false};
  if (key == "request" || key.rfind("request.", 0) == 0) {
    ojson request{{"channel", ctx.channel},
                  {"chat_id", ctx.chat_id},
                  {"sender_id", turn.value("sender_id", "")}};
    if (key == "request")
      return {my_format_value(request, key), false};
    auto field = key.substr(8);
    if (!request.contains(field))
      return tool_failure("Error: '" + key + "' not found");
    return {my_format_value(request[field], key), false};
  }
  auto parts = my_split(key);
  if (my_denied(parts[0]))
    return tool_failure("Error: '" + parts[0] + "' is not accessible");
  std::string err;
  for (auto& p : parts)
    if (my_denied(p) || my_blocked.count(p)
        || my_sensitive.count(ascii_lower(p)))
      err = "'" + p + "' is not accessible";
  const ojson* at = &snap;
  for (size_t i = 0; err.empty() && i < parts.size(); ++i) {
    if (!at->is_object())
      err = "'" + parts[i] + "' not found";
    else if (!at->contains(parts[i]))
      err = "'" + parts[i] + "' not found in mapping";
    else
      at = &(*at)[parts[i]];
  }
  if (!err.empty()) {
    if (key == "scratchpad")
      return {"scratchpad is empty", false};
    return tool_failure("Error: " + err);
  }
  return {my_line(*at, key), false};
}

tool_output my_tool(const nlohmann::json& args, const tool_context& ctx) {
  auto action = args.value("action", std::string{});
  auto key = args.contains("key") && args["key"].is_string()
               ? args["key"].get<std::string>()
               : std::string{};
  auto session =
    ctx.session_key.empty() ? std::string{"unknown"} : ctx.session_key;
  if (action == "check" || action == "inspect") {
    log::get("tools")->info("my.check | {} | session:{}",
                            key.empty() ? "(overview)" : key, session);
    auto turn = ojson::parse(ctx.turn_json, nullptr, false);
    if (turn.is_discarded())
      turn = ojson::object();
    return my_check(key, ctx, turn);
  }
  if (action == "set" || action == "modify") {
    log::get("tools")->info("my.modify | REFUSED {} | session:{}", key,
                            session);
    return tool_failure("Error: set is disabled (tools.my.allow_set is false)");
  }
  return {"Unknown action: " + action, false};
}

} // namespace

nlohmann::ordered_json my_settings_view(const settings& cfg) {
  auto& e = cfg.tools.exec;
  auto& w = cfg.tools.web;
  ojson presets = ojson::object();
  for (auto& [name, p] : cfg.model_presets)
    presets[name] = {{"model", p.model},
                     {"provider", p.provider},
                     {"max_tokens", p.max_tokens},
                     {"context_window_tokens", p.context_window_tokens},
                     {"temperature", p.temperature},
                     {"reasoning_effort", nullptr}};
  auto text_or_none = [](const std::string& s) {
    return s.empty() ? ojson(nullptr) : ojson(s);
  };
  return {
    {"model", cfg.agent.model},
    {"model_preset", text_or_none(cfg.agent.model_preset)},
    {"model_presets", presets},
    {"max_iterations", cfg.agent.max_tool_iterations},
    {"context_window_tokens", cfg.agent.context_window_tokens},
    {"provider_retry_mode", "standard"},
    {"max_tool_result_chars", cfg.agent.max_tool_result_chars},
    // Proxies and keys stay out: presence at most, as the original shows.
    {"web_config",
     {{"enable", w.enable},
      {"proxy", nullptr},
      {"user_agent", text_or_none(w.user_agent)},
      {"search",
       {{"provider", w.search.provider},
        {"base_url", w.search.base_url},
        {"max_results", w.search.max_results},
        {"timeout", w.search.timeout_s}}},
      {"fetch", {{"use_jina_reader", true}}}}},
    {"exec_config",
     {{"enable", e.enable},
      {"timeout", e.timeout_s},
      {"path_prepend", ""},
      {"path_append", e.path_append},
      {"sandbox", e.sandbox},
      {"sandbox_ro_binds", e.sandbox_ro_binds},
      {"sandbox_rw_binds", e.sandbox_rw_binds},
      {"allowed_env_keys", e.allowed_env_keys},
      {"allow_patterns", e.allow_patterns},
      {"deny_patterns", e.deny_patterns}}},
  };
}

void add_my(tool_registry& reg) {
  nlohmann::json schema = {
    {"type", "object"},
    {"properties",
     {{"action",
       {{"type", "string"},
        {"enum", {"check", "set"}},
        {"description", "What to do."}}},
      {"key",
       {{"type", "string"},
        {"description",
         "Dot path to look at, e.g. 'max_iterations', 'workspace', "
         "'_last_usage.prompt_tokens', 'web_config.enable'. "
         "'request.channel', 'request.chat_id' and 'request.sender_id' are "
         "this turn's routing. Without a key, check shows the overview."}}},
      {"value",
       {{"description", "The new value (set only); its type must match "
                        "the key's."}}}}},
    {"required", {"action"}},
  };
  reg.add({"my",
           "Look at your own runtime settings and state.\n"
           "- check without a key: the overview; start there.\n"
           "- check with a key: one value; dot paths reach inside "
           "(e.g. '_last_usage.total_tokens', 'exec_config.timeout').\n"
           "_current_iteration is this turn's progress; max_iterations "
           "minus it is what is left. request.channel, request.chat_id and "
           "request.sender_id tell where this turn came from.\n"
           "Use it when the user asks about your model, limits or token "
           "use, or when a tool behaves unexpectedly and its settings may "
           "explain why.\n"
           "READ-ONLY MODE: set is disabled.",
           {}, false, false},
          schema,
          my_tool);
}

} // namespace nb
