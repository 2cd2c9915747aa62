#include "actors/tools/exec_session_tools.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include <caf/scoped_actor.hpp>

#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/exec_cancel.hpp"
#include "actors/tools/exec_prepare.hpp"
#include "actors/tools/exec_session_output.hpp"
#include "actors/tools/text.hpp"

namespace nb {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr int64_t stdin_default_yield_ms = 1000;
constexpr int64_t stdin_default_wait_ms = 10000;
constexpr int64_t stdin_max_wait_ms = 120000;
// Beyond the wait itself: starting a sandboxed command, and a manager busy
// with another session's start.
constexpr milliseconds session_answer_margin{60000};

int64_t session_int_arg(const json& args, const char* key, int64_t fallback,
                        int64_t lo, int64_t hi) {
  if (!args.contains(key) || !args[key].is_number())
    return fallback;
  return std::clamp(args[key].get<int64_t>(), lo, hi);
}

std::string session_str_arg(const json& args, const char* key) {
  if (!args.contains(key) || !args[key].is_string())
    return {};
  return args[key].get<std::string>();
}

// Asks the manager (through the watch) and waits on this worker thread.
template <class Request, class Answer>
std::string ask_session_manager(const tool_context& ctx, Request rq,
                                milliseconds wait, Answer& answer) {
  if (!ctx.system || !ctx.watch)
    return "Error: background exec sessions are not available here";
  std::string error;
  caf::scoped_actor self{*ctx.system};
  self->request(ctx.watch, wait + session_answer_margin, std::move(rq))
    .receive([&](Answer& a) { answer = std::move(a); },
             [&](caf::error& e) {
               error = "Error: the exec session manager did not answer ("
                       + caf::to_string(e) + ")";
             });
  return error;
}

tool_output poll_output(const exec_session_poll& poll,
                        const std::string& wait_for = {}) {
  if (!poll.error.empty())
    return tool_failure(poll.error);
  // A timeout ended the command: the model must see it as a failure.
  return {format_session_poll(poll, wait_for), poll.timed_out};
}

tool_output write_stdin_tool(const json& args, const tool_context& ctx) {
  exec_session_write rq;
  rq.owner = ctx.session_key;
  rq.id = session_str_arg(args, "session_id");
  if (rq.id.empty())
    return tool_failure("Error: session_id is required");
  rq.chars = session_str_arg(args, "chars");
  rq.close_stdin = args.value("close_stdin", false);
  rq.terminate = args.value("terminate", false);
  rq.yield_ms = static_cast<int32_t>(session_int_arg(
    args, "yield_time_ms", stdin_default_yield_ms, 0, exec_max_yield_ms));
  rq.wait_for = session_str_arg(args, "wait_for");
  rq.wait_timeout_ms = static_cast<int32_t>(session_int_arg(
    args, "wait_timeout_ms", stdin_default_wait_ms, 0, stdin_max_wait_ms));
  auto cap = args.contains("max_output_chars") ? "max_output_chars"
                                               : "max_output_tokens";
  rq.max_output = static_cast<int32_t>(session_int_arg(
    args, cap, exec_default_output, exec_min_output, exec_max_output));
  auto wait =
    milliseconds(rq.wait_for.empty() ? rq.yield_ms : rq.wait_timeout_ms);
  auto wait_for = rq.wait_for;
  exec_session_poll poll;
  if (auto e = ask_session_manager(ctx, std::move(rq), wait, poll); !e.empty())
    return tool_failure(e);
  return poll_output(poll, wait_for);
}

// "npm run dev\n  --port 3000" -> "npm run dev --port 3000", at most 120
// characters.
std::string command_preview(const std::string& command) {
  std::istringstream words{command};
  std::string out, w;
  while (words >> w)
    out += (out.empty() ? "" : " ") + w;
  if (utf8_length(out) > 120)
    out = std::string{utf8_head(out, 119)} + "...";
  return out;
}

std::string seconds_text(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1fs", static_cast<double>(ms) / 1000.0);
  return buf;
}

tool_output list_exec_sessions_tool(const json&, const tool_context& ctx) {
  std::vector<exec_session_info> infos;
  if (auto e = ask_session_manager(ctx, exec_session_list{ctx.session_key},
                                   milliseconds(0), infos);
      !e.empty())
    return tool_failure("Error listing exec sessions: " + e);
  if (infos.empty())
    return {"No active exec sessions.", false};
  std::string text;
  for (auto& i : infos) {
    if (!text.empty())
      text += "\n";
    text += i.id + " | " + (i.running ? "running" : "exited")
            + " | elapsed=" + seconds_text(i.elapsed_ms)
            + " | idle=" + seconds_text(i.idle_ms) + " | remaining="
            + (i.remaining_ms < 0 ? std::string{"none"}
                                  : seconds_text(i.remaining_ms))
            + " | cwd=" + i.cwd + " | " + command_preview(i.command);
  }
  return {sanitize_utf8(text), false};
}

} // namespace

tool_output start_exec_session(exec_launch launch, int64_t yield_ms,
                               int64_t max_output, const tool_context& ctx) {
  exec_cancel stop{ctx};
  if (stop.refused())
    return tool_failure(
      "Error: Command not run: the task was stopped (/stop).");
  exec_session_start rq;
  rq.owner = ctx.session_key;
  rq.launch = std::move(launch);
  rq.yield_ms =
    static_cast<int32_t>(std::clamp<int64_t>(yield_ms, 0, exec_max_yield_ms));
  rq.max_output = static_cast<int32_t>(max_output);
  auto wait = milliseconds(rq.yield_ms);
  exec_session_poll poll;
  if (auto e = ask_session_manager(ctx, std::move(rq), wait, poll); !e.empty())
    return tool_failure(e);
  return poll_output(poll);
}

void add_exec_sessions(tool_registry& reg) {
  json write_schema = {
    {"type", "object"},
    {"properties",
     {{"session_id",
       {{"type", "string"},
        {"description", "The session_id exec answered (yield_time_ms)"}}},
      {"chars",
       {{"type", nullable_type("string")},
        {"description", "Text to type into the command's stdin (include "
                        "\"\\n\" to end a line); empty or left out: only "
                        "read what it wrote since the last call"}}},
      {"close_stdin",
       {{"type", "boolean"},
        {"description", "Close stdin after chars (end of input, for "
                        "commands that read to the end)"},
        {"default", false}}},
      {"terminate",
       {{"type", "boolean"},
        {"description", "Kill the command and everything it started"},
        {"default", false}}},
      {"yield_time_ms",
       {{"type", "integer"},
        {"description", "Milliseconds to wait for output before answering "
                        "(default 1000, at most 30000)"},
        {"minimum", 0},
        {"maximum", exec_max_yield_ms}}},
      {"wait_for",
       {{"type", nullable_type("string")},
        {"description", "Text to wait for in the output (a prompt, "
                        "\"listening on\"); the call answers once it "
                        "appears or wait_timeout_ms passes"}}},
      {"wait_timeout_ms",
       {{"type", nullable_type("integer")},
        {"description", "Most milliseconds to wait for wait_for (default "
                        "10000, at most 120000)"},
        {"minimum", 0},
        {"maximum", stdin_max_wait_ms}}},
      {"max_output_chars",
       output_cap_schema("Most output characters to return (default 10000, at "
                         "most 50000)")},
      {"max_output_tokens", output_cap_schema("Same as max_output_chars")}}},
    {"required", {"session_id"}},
    {"additionalProperties", false},
  };
  reg.add({"write_stdin",
           "Talk to a command exec left running in the background (exec "
           "with yield_time_ms answered a session_id): read its new output "
           "(chars empty), type into it (chars), end its input "
           "(close_stdin), or stop it (terminate). For servers, watchers "
           "and prompts, wait_for waits until the expected text shows up. "
           "It does not start commands: use exec for that.",
           {}, false, true},
          write_schema,
          write_stdin_tool);
  json list_schema = {{"type", "object"},
                      {"properties", json::object()},
                      {"additionalProperties", false}};
  reg.add({"list_exec_sessions",
           "List this chat's background exec sessions: session_id, running "
           "or exited, elapsed and idle time, time left before the "
           "timeout, working directory and the command. Use it to find a "
           "session_id again before write_stdin.",
           {}, true, false},
          list_schema,
          list_exec_sessions_tool);
}

} // namespace nb
