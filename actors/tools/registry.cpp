#include "actors/tools/registry.hpp"

#include "actors/common/tool_definition.hpp"

#include "config/spelling.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <unistd.h>

#include "actors/common/strings.hpp"
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/schema.hpp"
#include "actors/tools/text.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

bool is_mcp(const std::string& name) {
  return name.rfind("mcp_", 0) == 0;
}

// Normalised for suggestions only, never for execution: "Read-File" and
// "read_file" both become "readfile".
std::string lookup_key(const std::string& name) {
  std::string key;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      key.push_back(
        static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return key;
}

std::string join(const std::vector<std::string>& xs, const char* sep) {
  std::string out;
  for (auto& x : xs) {
    if (!out.empty())
      out += sep;
    out += x;
  }
  return out;
}

// A JSON string that itself holds an object or array (double encoding) is
// decoded once more; null and blank text mean "no arguments".
json coerce_arguments(json value) {
  if (value.is_null())
    return json::object();
  if (!value.is_string())
    return value;
  auto text = trim_space(value.get<std::string>());
  if (text.empty())
    return json::object();
  if (text[0] != '{' && text[0] != '[')
    return value;
  auto inner = json::parse(text, nullptr, false);
  return inner.is_discarded() ? value : inner;
}

} // namespace

void tool_registry::add(tool_spec spec, tool_fn run) {
  auto schema = json::parse(spec.parameters_json, nullptr, false);
  add(std::move(spec), std::move(schema), std::move(run));
}

void tool_registry::add(tool_spec spec, json schema, tool_fn run) {
  if (!schema.is_object())
    throw std::invalid_argument("tool '" + spec.name
                                + "': parameters_json is not a JSON object");
  // Kept as one compact text: turns put it into requests as it is.
  spec.parameters_json =
    schema.dump(-1, ' ', false, json::error_handler_t::replace);
  spec = with_definition(std::move(spec));
  auto name = spec.name;
  tools_[name] = tool_entry{std::move(spec), std::move(schema),
                            std::move(run)};
}

const tool_entry* tool_registry::find(const std::string& name) const {
  auto it = tools_.find(name);
  return it == tools_.end() ? nullptr : &it->second;
}

void tool_registry::remove(const std::string& name) { tools_.erase(name); }

std::vector<std::string> tool_registry::names() const {
  // std::map keeps names sorted; MCP tools go after the built-ins.
  std::vector<std::string> out;
  for (auto& [name, _] : tools_)
    if (!is_mcp(name))
      out.push_back(name);
  for (auto& [name, _] : tools_)
    if (is_mcp(name))
      out.push_back(name);
  return out;
}

std::vector<tool_spec> tool_registry::definitions() const {
  std::vector<tool_spec> out;
  for (auto& name : names())
    out.push_back(tools_.at(name).spec);
  return out;
}

prepared_call tool_registry::prepare_call(
  const std::string& name, const std::string& arguments_json) const {
  prepared_call out;
  auto available = " Available: " + join(names(), ", ");
  if (trim_space(name).empty()) {
    out.error = "Error: Tool call has no tool name. Tool names must match "
                "exactly."
                + available;
    return out;
  }
  out.tool = find(name);
  if (!out.tool) {
    std::string suggestion;
    auto key = lookup_key(name);
    size_t best = 3;
    int ties = 0;
    for (auto& [candidate, _] : tools_) {
      auto d = edit_distance(key, lookup_key(candidate));
      // Two edits at most, and only for names long enough to mean it.
      if (d > 2 || key.size() < 4)
        continue;
      if (d < best) {
        best = d;
        suggestion = candidate;
        ties = 1;
      } else if (d == best) {
        ++ties;
      }
    }
    auto hint = ties == 1 ? " Did you mean '" + suggestion
                              + "'? Tool names must match exactly."
                          : std::string{};
    out.error = "Error: Tool '" + name + "' not found." + hint + available;
    return out;
  }
  auto text = trim_space(arguments_json);
  json args = json::object();
  if (!text.empty()) {
    args = json::parse(text, nullptr, false);
    if (args.is_discarded()) {
      out.error = "Error: Invalid parameters for tool '" + name
                  + "': arguments are not valid JSON (received: "
                  + preview(text) + ")";
      return out;
    }
  }
  args = coerce_arguments(std::move(args));
  // {"arguments": {...}}: a wrapper some models add around the real object.
  auto& props = out.tool->schema;
  bool takes_arguments = props.contains("properties")
                         && props["properties"].is_object()
                         && props["properties"].contains("arguments");
  if (args.is_object() && args.size() == 1 && args.contains("arguments")
      && !takes_arguments)
    args = coerce_arguments(args["arguments"]);
  if (!args.is_object()) {
    out.error = "Error: Tool '" + name
                + "' parameters must be a JSON object, got "
                + std::string{args.type_name()}
                + ". Use named parameters like tool_name(param1=\"value1\", "
                  "param2=\"value2\") matching the tool schema.";
    return out;
  }
  auto schema = out.tool->schema;
  if (!schema.contains("type"))
    schema["type"] = "object";
  out.args = cast_to_schema(args, schema);
  auto errors = validate_against_schema(out.args, schema);
  if (!errors.empty())
    out.error = "Error: Invalid parameters for tool '" + name
                + "': " + join(errors, "; ");
  return out;
}

tool_output tool_registry::execute(const tool_call& call,
                                   const tool_context& ctx) const {
  auto prep = prepare_call(call.name, call.arguments_json);
  if (!prep.ok())
    return {prep.error + tool_error_hint, true};
  tool_output out;
  try {
    out = prep.tool->run(prep.args, ctx);
  } catch (const std::exception& e) {
    out = {"Error executing " + call.name + ": " + e.what(), true};
  } catch (...) {
    out = {"Error executing " + call.name + ": unknown failure", true};
  }
  // File names and symlink targets need not be UTF-8; the transcript must.
  out.content = sanitize_utf8(out.content);
  if (out.is_error)
    out.content += tool_error_hint;
  else if (out.content.empty())
    out.content = "(" + call.name + " completed with no output)";
  return out;
}

tool_context make_tool_context(const settings& cfg, std::string session_key) {
  tool_context ctx;
  char buf[4096];
  std::string cwd = ::getcwd(buf, sizeof buf) ? buf : "/";
  ctx.workspace = absolute_path(cfg.agent.workspace, cwd);
  while (ctx.workspace.size() > 1 && ctx.workspace.back() == '/')
    ctx.workspace.pop_back();
  // A configured sandbox holds the file tools to the workspace too, as in
  // nanobot.
  ctx.restrict_to_workspace = exec_sandboxed(cfg);
  ctx.exec = cfg.tools.exec;
  if (!cfg.config_path.empty()) {
    ctx.config_file = absolute_path(cfg.config_path, cwd);
    ctx.config_dir = absolute_path(cfg.config_dir(), cwd);
  }
  ctx.web = cfg.tools.web;
  ctx.ssrf_whitelist = cfg.tools.ssrf_whitelist;
  ctx.web_proxy = cfg.tools.web.proxy;
  ctx.browser = cfg.tools.browser;
  ctx.agent = cfg.agent_id;
  ctx.bindings = cfg.bindings;
  ctx.allow_tools = cfg.tools.allow;
  ctx.deny_tools = cfg.tools.deny;
  ctx.max_session_messages_per_minute =
    cfg.tools.max_session_messages_per_minute;
  ctx.cli_apps = cfg.tools.cli_apps;
  ctx.my_settings = my_settings_view(cfg);
  ctx.session_key = std::move(session_key);
  return ctx;
}

} // namespace nb
