// send_session_message: the original's message into another persisted
// session of this agent, by @handle (or exact session key, as read_session
// takes it). This half runs on a tool worker: it resolves both sessions in
// the sessions folder (blocking file I/O) and hands the rest to the
// subagents manager (actors/subagents/session_mail.cpp), which applies
// tools.maxSessionMessagesPerMinute and sends the message through the
// entry, so it is journaled by the durable inbox like every inbound one.
#include <chrono>
#include <regex>

#include <caf/scoped_actor.hpp>

#include "actors/common/strings.hpp"
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/session_access.hpp"
#include "messages/interfaces.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr int min_reply_timeout = 5;
constexpr int max_reply_timeout = 60;

/// The message without the model's thinking blocks, as the original sends
/// it (strip_think: closed blocks anywhere, an unclosed one at the start).
std::string without_thinking(std::string text) {
  static const std::regex closed{R"(<(think|thinking|thought)>[\s\S]*?</\1>)"};
  static const std::regex unclosed{R"(^\s*<(think|thinking|thought)>[\s\S]*$)"};
  text = std::regex_replace(text, closed, "");
  return std::regex_replace(text, unclosed, "");
}

/// The target by @handle (or bare handle), else by exact key; `error` set
/// when neither names a session.
std::string target_key_for(const handle_table& table, const std::string& to,
                           std::string& error) {
  auto name = normalize_session_handle(to);
  if (name)
    for (auto& [key, handle] : table.by_key)
      if (handle == *name)
        return key;
  if (table.by_key.count(to))
    return to;
  if (name)
    error = "Error: session @" + *name + " was not found";
  else if (!to.empty() && to[0] == '@')
    error = "Error: session handle is invalid";
  else
    error = "Error: session not found: " + to;
  return {};
}

tool_output send_session_message(const json& args, const tool_context& ctx) {
  if (ctx.session_key.empty())
    return tool_failure("Error: session context is unavailable");
  bool expect_reply = args.value("expect_reply", false);
  int timeout = 0;
  if (expect_reply) {
    if (args.contains("reply_timeout_seconds")
        && args["reply_timeout_seconds"].is_number_integer())
      timeout = args["reply_timeout_seconds"].get<int>();
    if (timeout < min_reply_timeout || timeout > max_reply_timeout)
      return tool_failure(
        "Error: expect_reply=true requires reply_timeout_seconds between "
        + std::to_string(min_reply_timeout) + " and "
        + std::to_string(max_reply_timeout));
  }
  std::string err;
  auto dir = session_files_dir(ctx, err);
  if (!dir)
    return tool_failure(err);
  auto table = session_handles_in(*dir);
  if (!table.error.empty())
    return tool_failure(table.error);
  auto to = std::string{trim_view(args.value("to", std::string{}))};
  auto target = target_key_for(table, to, err);
  if (target.empty())
    return tool_failure(err);
  auto source = table.by_key.find(ctx.session_key);
  if (source == table.by_key.end())
    return tool_failure("Error: source session was not found");
  if (target == ctx.session_key)
    return tool_failure("Error: @" + source->second
                        + " is this session; a session cannot send a "
                          "message to itself");
  if (!ctx.mail || !ctx.system)
    return tool_failure("Error: session messages cannot be sent from here");
  session_mail m;
  m.agent = ctx.agent;
  m.source_key = ctx.session_key;
  m.source_handle = source->second;
  m.source_channel = ctx.channel;
  m.source_chat_id = ctx.chat_id;
  m.target_key = target;
  m.target_handle = table.by_key[target];
  m.content = without_thinking(args.value("content", std::string{}));
  m.expect_reply = expect_reply;
  m.reply_timeout_seconds = timeout;
  m.max_per_minute = ctx.max_session_messages_per_minute;
  std::string answer = "Error: the message could not be handed over";
  {
    // A tool worker is a thread of its own: waiting here blocks no one.
    caf::scoped_actor self{*ctx.system};
    self
      ->request(caf::actor_cast<subagents_actor>(ctx.mail),
                std::chrono::seconds(30), std::move(m))
      .receive(
        [&](std::string& a) { answer = std::move(a); },
        [&](caf::error& e) { answer += " (" + ctx.system->render(e) + ")"; });
  }
  if (!answer.empty())
    return tool_failure(answer);
  auto sent = "Sent to @" + table.by_key[target] + ".";
  if (expect_reply)
    sent += " A timeout notice will arrive after " + std::to_string(timeout)
            + "s unless it replies.";
  return {sent, false};
}

} // namespace

void add_session_send(tool_registry& reg) {
  json schema = {
    {"type", "object"},
    {"properties",
     {{"to", {{"type", "string"}, {"description", "The target's @handle."}}},
      {"content", {{"type", "string"}, {"description", "What to send."}}},
      {"expect_reply",
       {{"type", "boolean"},
        {"description", "Tell this session when no reply came in time."}}},
      {"reply_timeout_seconds",
       {{"type", "integer"},
        {"minimum", min_reply_timeout},
        {"maximum", max_reply_timeout},
        {"description", "Seconds to wait for that reply; needed when "
                        "expect_reply is true."}}}}},
    {"required", {"to", "content", "expect_reply"}},
  };
  reg.add({"send_session_message",
           "Send a message to another saved session of this agent, named "
           "by its @handle (see list_sessions). It arrives there as user "
           "input.",
           {}, false, false},
          schema,
          send_session_message);
}

} // namespace nb
