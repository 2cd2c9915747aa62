#include "actors/channels/discord/discord_event.hpp"

#include <algorithm>

#include "actors/common/strings.hpp"

namespace nb::discord {

namespace {

using nlohmann::json;

std::string str_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool is_thread(const json& ch) {
  auto it = ch.find("type");
  // 10 announcement thread, 11 public thread, 12 private thread
  return it != ch.end() && it->is_number_integer() && it->get<int>() >= 10
         && it->get<int>() <= 12;
}

void note_channel(gateway_view& v, const json& ch) {
  if (ch.is_object() && is_thread(ch) && !str_of(ch, "id").empty())
    v.thread_parent[str_of(ch, "id")] = str_of(ch, "parent_id");
}

void erase_all(std::string& s, const std::string& what) {
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what))
    s.erase(p, what.size());
}

} // namespace

void note_threads(gateway_view& view, const std::string& type, const json& d) {
  if (!d.is_object())
    return;
  if (type == "THREAD_CREATE" || type == "THREAD_UPDATE")
    note_channel(view, d);
  if (type == "GUILD_CREATE" || type == "THREAD_LIST_SYNC")
    if (d.contains("threads") && d["threads"].is_array())
      for (auto& t : d["threads"])
        note_channel(view, t);
}

std::optional<inbound_msg> parse_message(const json& d,
                                         const gateway_view& view,
                                         const std::string& channel,
                                         std::string& why) {
  if (!d.is_object() || str_of(d, "channel_id").empty()
      || !d.contains("author") || !d["author"].is_object()
      || str_of(d["author"], "id").empty()) {
    why = "malformed MESSAGE_CREATE";
    return std::nullopt;
  }
  const json& author = d["author"];
  auto author_id = str_of(author, "id");
  // value("bot", false) would throw on a non-boolean "bot" (fuzz_discord).
  if (author_id == view.bot_id
      || (author.contains("bot") && author["bot"] == true)) {
    why = "from a bot";
    return std::nullopt;
  }
  auto channel_id = str_of(d, "channel_id");
  auto parent = view.thread_parent.find(channel_id);
  bool thread = parent != view.thread_parent.end();
  auto& allowed = view.allow_channels;
  if (!allowed.empty()
      && std::find(allowed.begin(), allowed.end(), channel_id) == allowed.end()
      && (!thread || std::find(allowed.begin(), allowed.end(), parent->second)
                       == allowed.end())) {
    why = "channel not in allowChannels";
    return std::nullopt;
  }
  auto text = str_of(d, "content");
  bool guild = !str_of(d, "guild_id").empty();
  bool mentioned = false;
  if (d.contains("mentions") && d["mentions"].is_array())
    for (auto& m : d["mentions"])
      if (m.is_object() && str_of(m, "id") == view.bot_id)
        mentioned = true;
  for (auto tag : {"<@" + view.bot_id + ">", "<@!" + view.bot_id + ">"})
    if (!view.bot_id.empty() && text.find(tag) != std::string::npos) {
      mentioned = true;
      erase_all(text, tag);
    }
  text = trim_space(text);
  inbound_msg in;
  if (d.contains("attachments") && d["attachments"].is_array())
    for (auto& a : d["attachments"])
      if (a.is_object() && !str_of(a, "url").empty()) {
        in.media.push_back(str_of(a, "url"));
        text += (text.empty() ? "" : "\n") + std::string{"[attachment: "}
                + str_of(a, "filename") + " " + str_of(a, "url") + "]";
      }
  if (text.empty()) {
    why = "no text or attachments";
    return std::nullopt;
  }
  in.channel = channel;
  in.sender_id = author_id;
  in.chat_id = channel_id;
  in.content = text;
  json meta{{"_is_group", guild},
            {"_mentioned", guild ? mentioned : true},
            {"_message_id", str_of(d, "id")},
            {"message_id", str_of(d, "id")},
            {"username", str_of(author, "username")},
            {"guild_id", str_of(d, "guild_id")}};
  if (thread) {
    in.session_key_override = channel + ":" + parent->second + ":thread:"
                              + channel_id;
    meta["parent_channel_id"] = parent->second;
  }
  in.metadata_json = meta.dump();
  return in;
}

} // namespace nb::discord
