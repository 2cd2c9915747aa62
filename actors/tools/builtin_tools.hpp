// Tools: the built-in tools, one registration function per tool file.
#pragma once

#include "actors/tools/registry.hpp"
#include "actors/tools/ssrf.hpp"

namespace nb {

/// read_file: numbered lines of a text file, paged by offset/limit.
void add_read_file(tool_registry& reg);

/// write_file: creates or replaces a whole file.
void add_write_file(tool_registry& reg);

/// edit_file: exact text replacement in one file.
void add_edit_file(tool_registry& reg);

/// apply_patch: structured edits over several files, all or nothing.
void add_apply_patch(tool_registry& reg);

/// search_sessions, read_session: other saved chats, read-only.
void add_session_tools(tool_registry& reg);

/// list_sessions: the other sessions by @handle.
void add_session_messages(tool_registry& reg);

/// send_session_message: user input for another session of this agent,
/// handed to the subagents manager (actors/tools/session_send.cpp).
void add_session_send(tool_registry& reg);

/// my: the agent's own settings and turn state, read-only
/// (actors/tools/my_tool.cpp).
void add_my(tool_registry& reg);

/// What my shows of `cfg` (no secret in it): the model and its presets,
/// limits, web_config and exec_config as the original snapshots them.
nlohmann::ordered_json my_settings_view(const settings& cfg);

/// list_dir: directory entries, optionally recursive.
void add_list_dir(tool_registry& reg);

/// grep: file contents by regex or fixed string.
void add_grep(tool_registry& reg);

/// find_files: files by glob, type and name terms.
void add_find_files(tool_registry& reg);

/// web_fetch: a web page as text, through the SSRF guard.
void add_web_fetch(tool_registry& reg);

/// web_search: numbered results from the configured search provider.
void add_web_search(tool_registry& reg);

/// message: text, files and buttons to a chat through the outbox.
void add_message(tool_registry& reg);

/// exec: one shell command in a fresh process group, with a time limit.
void add_exec(tool_registry& reg);
/// write_stdin and list_exec_sessions (exec's background sessions).
void add_exec_sessions(tool_registry& reg);

/// run_cli_app: an installed CLI app (tools.cliApps), by argv; its
/// description names the apps installed when `cfg` was read.
void add_run_cli_app(tool_registry& reg, const settings& cfg);

/// cron: add, list and remove scheduled jobs (actors/tools/cron_tool.cpp).
void add_cron(tool_registry& reg);

/// memory_search, memory_save, memory_forget: semantic memory
/// (actors/tools/memory_tools.cpp).
void add_memory_tools(tool_registry& reg);

/// browser: headless Chromium driven over the DevTools protocol
/// (actors/browser/); `evaluate` only when cfg.allow_evaluate.
void add_browser(tool_registry& reg, const browser_settings& cfg);

/// The SSRF policy for `ctx`: its whitelist, and its resolver if set.
ssrf_policy policy_for(const tool_context& ctx);

} // namespace nb
