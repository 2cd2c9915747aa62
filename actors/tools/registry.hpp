// Tools: the registry of tool specs and implementations, call preparation
// (name lookup, argument coercion, schema validation) and execution.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/tools/exec_watch.hpp"
#include "config/settings.hpp"
#include "messages/chat.hpp"
#include "messages/model.hpp"
#include "messages/session.hpp"
#include "messages/tool.hpp"

namespace nb {

class warm_sandbox_pool;

/// What one tool run produced.
struct tool_output {
  std::string content;
  bool is_error = false;
  bool delivered_to_origin = false; ///< message tool: sent to this chat
};

/// A tool's refusal or error, worded for the model.
inline tool_output tool_failure(std::string text) {
  return {std::move(text), true};
}

/// Everything a tool may know about where and for whom it runs.
struct tool_context {
  std::string workspace;            ///< absolute, '~' expanded
  bool restrict_to_workspace = true;
  exec_settings exec;
  /// The bubblewrap whose availability decides whether exec may run
  /// sandboxed ("" = find_bwrap(), the one the sandbox then runs).
  std::string bwrap;
  /// config.json and its directory (sessions/ and the keys): never visible
  /// to a sandboxed command, even when inside the workspace or a bind. The
  /// session tools read the sessions below config_dir ("" = those tools
  /// are not available).
  std::string config_file;
  std::string config_dir;
  std::string session_key;
  web_settings web;
  std::vector<std::string> ssrf_whitelist; ///< CIDRs (tools.ssrfWhitelist)
  std::string web_proxy;                   ///< tools.web.proxy ("" = direct)
  std::string agent = "main"; ///< whose tools these are (stats label)
  /// agents.bindings: the message tool writes only to this agent's chats.
  std::vector<agent_binding> bindings;
  /// The agent's tools.allow / tools.deny (see tool_permitted).
  std::vector<std::string> allow_tools, deny_tools;
  /// Host name resolver for agent-driven HTTP; null = the system's. Tests
  /// put a scripted DNS here.
  std::function<std::vector<std::string>(const std::string&)> resolve;
  // The turn this call belongs to (filled from the tool_request).
  std::string channel;
  std::string chat_id;
  bool suppress_delivery = false;
  outbound_sink outbox; ///< null: the message tool cannot send
  std::string call_id;  ///< the call being run (from the tool_request)
  /// The subagents manager, which hands session messages to the entry
  /// (from the tool_request; null: send_session_message cannot send).
  caf::actor mail;
  int32_t max_session_messages_per_minute = 6; ///< tools.max...PerMinute
  cli_apps_settings cli_apps;                  ///< tools.cliApps (run_cli_app)
  /// The turn's model, iteration, usage and tool names (tool_request's
  /// turn_json) and the settings' view (my_settings_view): the my tool.
  std::string turn_json = "{}";
  nlohmann::ordered_json my_settings;
  /// Where exec registers so /stop can end it (null: it cannot be stopped).
  caf::actor_system* system = nullptr;
  exec_watch_actor watch;
  browser_settings browser;
  /// The browsers front (one Chromium per agent); null: no browser tool.
  tool_executor_actor browsers;
  /// The front's warm sandboxes for exec; null: every sandbox starts cold.
  std::shared_ptr<warm_sandbox_pool> warm_sandboxes;
};

/// A tool's implementation: validated arguments in, output out. May throw;
/// the registry turns exceptions into error outputs.
using tool_fn
  = std::function<tool_output(const nlohmann::json& args, const tool_context&)>;

/// One registered tool.
struct tool_entry {
  tool_spec spec;
  nlohmann::json schema; ///< spec.parameters_json, parsed once
  tool_fn run;
};

/// The outcome of prepare_call: the tool and its cast arguments, or an error
/// text for the model (without the retry hint).
struct prepared_call {
  const tool_entry* tool = nullptr;
  nlohmann::json args;
  std::string error;
  bool ok() const {
    return error.empty();
  }
};

/// Name → tool. Immutable once built; share it as a pointer to const.
class tool_registry {
public:
  tool_registry() = default;

  /// Registers `spec` with `run`; replaces a tool of the same name. Throws
  /// std::invalid_argument when parameters_json is not a JSON object.
  void add(tool_spec spec, tool_fn run);
  /// The same with the schema as a JSON object (spec.parameters_json is
  /// written from it): how the built-in tools register, without writing
  /// their schema out and reading it back (a tenth of a gateway's start).
  void add(tool_spec spec, nlohmann::json schema, tool_fn run);

  /// Returns the tool called exactly `name`, or null.
  const tool_entry* find(const std::string& name) const;

  /// Removes the tool called `name`, if there is one.
  void remove(const std::string& name);

  /// Returns the specs: built-ins sorted by name, then `mcp_*` sorted.
  std::vector<tool_spec> definitions() const;

  /// Returns the names in definitions() order.
  std::vector<std::string> names() const;

  /// Resolves `name`, turns `arguments_json` into an object, casts and
  /// validates it against the tool's schema.
  prepared_call prepare_call(const std::string& name,
                             const std::string& arguments_json) const;

  /// Prepares and runs `call`. Never throws: failures become error outputs
  /// carrying tool_error_hint; an empty success becomes
  /// "(<name> completed with no output)".
  tool_output execute(const tool_call& call, const tool_context& ctx) const;

private:
  std::map<std::string, tool_entry> tools_;
};

/// Returns the base context for tool calls under `cfg`.
tool_context make_tool_context(const settings& cfg,
                               std::string session_key = {});

/// Returns a registry with read_file, write_file, edit_file, list_dir and,
/// when tools.exec.enable, exec.
tool_registry make_builtin_registry(const settings& cfg);

} // namespace nb
