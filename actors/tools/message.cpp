// message: send text (and files, buttons) to a chat, by default the one
// the turn came from, through the outbox (the channel manager).
#include <caf/send.hpp>

#include <sys/stat.h>

#include "actors/agents/agent_route.hpp"
#include "actors/tools/builtin_tools.hpp"
#include "actors/tools/workspace_guard.hpp"

namespace nb {

namespace {

using nlohmann::json;

bool is_url(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0;
}

tool_output message_tool(const json& args, const tool_context& ctx) {
  auto content = args.value("content", std::string{});
  auto channel = args.value("channel", std::string{});
  auto chat_id = args.value("chat_id", std::string{});
  if (channel.empty())
    channel = ctx.channel;
  if (chat_id.empty())
    chat_id = ctx.chat_id;
  if (channel.empty() || chat_id.empty())
    return tool_failure("Error: No target channel/chat specified");
  json meta = json::object();
  json media = json::array();
  if (args.contains("media") && args["media"].is_array()) {
    for (auto& m : args["media"]) {
      if (!m.is_string() || m.get_ref<const std::string&>().empty())
        return tool_failure(
          "Error: media must be a list of file paths or URLs");
      auto item = m.get<std::string>();
      if (is_url(item)) {
        // The channel adapter fetches it later; the SSRF guard decides now.
        parsed_url u;
        auto err = parse_url(item, u);
        if (err.empty())
          err = check_url_target(u, policy_for(ctx)).error;
        if (!err.empty())
          return tool_failure("Error: media URL refused: " + err);
        media.push_back(item);
        continue;
      }
      auto real = resolve_tool_path(item, ctx, "Sending");
      if (!real.ok())
        return tool_failure(real.error);
      struct stat st;
      if (::stat(real.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return tool_failure(
          "Error: media file not found or not a regular file: " + item);
      media.push_back(real.path);
    }
  }
  size_t buttons = 0;
  if (args.contains("buttons") && !args["buttons"].is_null()) {
    auto& rows = args["buttons"];
    bool ok = rows.is_array();
    for (auto& row : ok ? rows : json::array()) {
      ok = ok && row.is_array() && !row.empty();
      for (auto& label : ok ? row : json::array()) {
        ok = ok && label.is_string()
             && !label.get_ref<const std::string&>().empty();
        ++buttons;
      }
    }
    if (!ok)
      return tool_failure(
        "Error: buttons must be a list of rows, each a non-empty "
        "list of button labels");
    meta["buttons"] = rows;
  }
  if (content.empty() && media.empty())
    return tool_failure("Error: content is empty");
  if (!media.empty()) {
    meta["media"] = media;
    meta["_record_channel_delivery"] = true;
  }
  auto target = channel + ":" + chat_id;
  // With several agents, a chat belongs to the agent its bindings name:
  // another agent's chats are out of reach (its own chat always counts).
  if (!ctx.bindings.empty()
      && !(channel == ctx.channel && chat_id == ctx.chat_id)
      && match_binding(ctx.bindings, {channel, channel, chat_id, "", false})
           != ctx.agent)
    return tool_failure("Error: " + target
                        + " is answered by another agent; this "
                          "agent can message only its own chats");
  if (ctx.suppress_delivery)
    return {"Message acknowledged for " + target + " (not delivered)", false};
  if (!ctx.outbox)
    return tool_failure("Error: Message sending not configured (no channel "
                        "delivery in this process)");
  outbound_msg msg;
  msg.channel = channel;
  msg.chat_id = chat_id;
  msg.session_key = ctx.session_key;
  msg.kind = outbound_kind::final_reply;
  msg.content = content;
  msg.metadata_json = meta.dump();
  caf::anon_send(ctx.outbox, std::move(msg));
  auto text = "Message sent to " + target;
  if (!media.empty())
    text += " with " + std::to_string(media.size()) + " attachments";
  if (buttons)
    text += " with " + std::to_string(buttons) + " button(s)";
  tool_output out{text, false};
  out.delivered_to_origin = channel == ctx.channel && chat_id == ctx.chat_id;
  return out;
}

} // namespace

void add_message(tool_registry& reg) {
  json schema = {
    {"type", "object"},
    {"properties",
     {{"content", {{"type", "string"}, {"description", "The text to send"}}},
      {"channel",
       {{"type", "string"},
        {"description", "Target channel (default: this conversation's)"}}},
      {"chat_id",
       {{"type", "string"},
        {"description", "Target chat (default: this conversation's)"}}},
      {"media",
       {{"type", "array"},
        {"items", {{"type", "string"}}},
        {"description", "Files in the workspace or http(s) URLs to "
                        "attach"}}},
      {"buttons",
       {{"type", "array"},
        {"items", {{"type", "array"}, {"items", {{"type", "string"}}}}},
        {"description", "Rows of button labels"}}}}},
    {"required", {"content"}},
    {"additionalProperties", false},
  };
  reg.add({"message",
           "Send a message to the user now, or to another channel and chat. "
           "Use it for progress notes or to deliver files; your final "
           "answer is sent anyway, so do not repeat it here.",
           {}, false, false},
          schema,
          message_tool);
}

} // namespace nb
