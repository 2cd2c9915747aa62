#include "actors/channels/whatsapp/bridge_frames.hpp"

#include "actors/channels/kit/media_file.hpp"

namespace nb::whatsapp {

namespace {

using nlohmann::json;

std::string str_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool flag_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string user_part(const std::string& jid) {
  auto at = jid.find('@');
  auto user = jid.substr(0, at);
  // A device suffix ("123:4@s.whatsapp.net") is not part of the number.
  user = user.substr(0, user.find(':'));
  if (!user.empty() && user[0] == '+')
    user.erase(0, 1);
  return user;
}

bridge_frame read_message(const json& j, const std::string& channel) {
  bridge_frame f;
  f.kind = bridge_frame::message;
  auto sender = str_of(j, "sender");
  f.message_id = str_of(j, "id");
  std::vector<std::string> media;
  if (auto m = j.find("media"); m != j.end() && m->is_array())
    for (auto& p : *m)
      if (p.is_string() && !p.get_ref<const std::string&>().empty())
        media.push_back(p.get<std::string>());
  auto content = str_of(j, "content");
  if (sender.empty() || f.message_id.empty()
      || (content.empty() && media.empty())) {
    f.kind = bridge_frame::malformed;
    f.text = "message frame without "
             + std::string{sender.empty()           ? "sender"
                           : f.message_id.empty()   ? "id"
                                                    : "content or media"};
    return f;
  }
  bool group = flag_of(j, "isGroup");
  f.msg.channel = channel;
  f.msg.sender_id = sender_number(str_of(j, "pn"), sender);
  f.msg.chat_id = sender; // the full JID: where the answer goes
  f.msg.content = content;
  f.msg.media = std::move(media);
  json meta{{"_is_group", group},
            {"_mentioned", !group || flag_of(j, "wasMentioned")},
            {"_message_id", f.message_id}};
  if (auto ts = j.find("timestamp"); ts != j.end() && ts->is_number())
    meta["timestamp"] = *ts;
  f.msg.metadata_json = meta.dump();
  return f;
}

} // namespace

std::string sender_number(const std::string& pn, const std::string& sender) {
  std::string phone, lid;
  for (const auto* jid : {&pn, &sender}) {
    if (jid->empty())
      continue;
    if (jid->find("@s.whatsapp.net") != std::string::npos)
      phone = user_part(*jid);
    else if (jid->find("@lid") != std::string::npos)
      lid = user_part(*jid);
    else if (jid->find('@') == std::string::npos && phone.empty())
      phone = user_part(*jid);
  }
  if (!phone.empty())
    return phone;
  if (!lid.empty())
    return lid;
  return user_part(pn.empty() ? sender : pn);
}

bridge_frame read_bridge_frame(const std::string& text,
                               const std::string& channel) {
  bridge_frame f;
  auto j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    f.kind = bridge_frame::malformed;
    f.text = "not a JSON object with a type";
    return f;
  }
  auto type = j["type"].get<std::string>();
  if (type == "message")
    return read_message(j, channel);
  f.to = str_of(j, "to");
  f.msg_id = str_of(j, "msg_id");
  if (type == "qr") {
    f.kind = bridge_frame::qr;
    f.text = str_of(j, "qr");
  } else if (type == "status") {
    f.kind = bridge_frame::status;
    f.text = str_of(j, "status");
  } else if (type == "sent") {
    f.kind = bridge_frame::sent;
  } else if (type == "error") {
    f.kind = bridge_frame::error;
    f.text = str_of(j, "error");
    if (f.text.empty())
      f.text = "unknown bridge error";
  } else {
    f.text = type;
  }
  return f;
}

json auth_frame(const std::string& token) {
  return {{"type", "auth"}, {"token", token}};
}

json send_frame(const std::string& to, const std::string& text) {
  return {{"type", "send"}, {"to", to}, {"text", text}};
}

json send_media_frame(const std::string& to, const std::string& path,
                      const std::string& caption) {
  json f{{"type", "send_media"},
         {"to", to},
         {"filePath", path},
         {"mimetype", chan::mime_for_path(path)},
         {"fileName", path.substr(path.rfind('/') + 1)}};
  if (!caption.empty())
    f["caption"] = caption;
  return f;
}

} // namespace nb::whatsapp
