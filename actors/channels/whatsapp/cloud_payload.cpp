#include "actors/channels/whatsapp/cloud_payload.hpp"

#include <cctype>

#include "actors/channels/kit/hmac.hpp"

namespace nb::whatsapp {

namespace {

using nlohmann::json;

std::string str_or_number(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end())
    return "";
  if (it->is_string())
    return it->get<std::string>();
  if (it->is_number_integer())
    return std::to_string(it->get<int64_t>());
  return "";
}

const json& obj_of(const json& j, const char* key) {
  static const json empty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : empty;
}

const json& list_of(const json& j, const char* key) {
  static const json empty = json::array();
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

/// The words of a message of `type`, and its attachment if it has one.
bool read_body(const json& m, const std::string& type, cloud_message& out,
               std::string& why) {
  auto& c = out.msg.content;
  if (type == "text") {
    c = str_or_number(obj_of(m, "text"), "body");
  } else if (type == "image" || type == "video" || type == "audio"
             || type == "document" || type == "sticker") {
    const auto& media = obj_of(m, type.c_str());
    out.media_id = str_or_number(media, "id");
    out.media_mime = str_or_number(media, "mime_type");
    out.media_name = str_or_number(media, "filename");
    c = str_or_number(media, "caption");
    if (out.media_id.empty()) {
      why = type + " without a media id";
      return false;
    }
  } else if (type == "button") {
    c = str_or_number(obj_of(m, "button"), "text");
  } else if (type == "interactive") {
    const auto& i = obj_of(m, "interactive");
    c = str_or_number(obj_of(i, "button_reply"), "title");
    if (c.empty())
      c = str_or_number(obj_of(i, "list_reply"), "title");
  } else if (type == "location") {
    const auto& l = obj_of(m, "location");
    auto num = [&](const char* k) {
      auto it = l.find(k);
      return it != l.end() && it->is_number() ? it->dump() : std::string{"?"};
    };
    c =
      "[location " + num("latitude") + "," + num("longitude")
      + (str_or_number(l, "name").empty() ? "" : " " + str_or_number(l, "name"))
      + "]";
  } else {
    why = "message type \"" + type + "\" not handled";
    return false;
  }
  if (c.empty() && out.media_id.empty()) {
    why = type + " message without text";
    return false;
  }
  return true;
}

void read_value(const json& value, const std::string& channel,
                webhook_batch& out) {
  for (const auto& m : list_of(value, "messages")) {
    cloud_message cm;
    auto from = str_or_number(m, "from");
    cm.message_id = str_or_number(m, "id");
    auto type = str_or_number(m, "type");
    std::string why;
    if (from.empty() || cm.message_id.empty()) {
      out.skipped.push_back("message without from or id");
      continue;
    }
    if (!read_body(m, type, cm, why)) {
      out.skipped.push_back(cm.message_id + ": " + why);
      continue;
    }
    cm.msg.channel = channel;
    cm.msg.sender_id = from;
    cm.msg.chat_id = from;
    json meta{{"_is_group", false},
              {"_mentioned", true},
              {"_message_id", cm.message_id},
              {"timestamp", str_or_number(m, "timestamp")}};
    if (auto ctx = obj_of(m, "context"); ctx.contains("id"))
      meta["reply_to"] = str_or_number(ctx, "id");
    cm.msg.metadata_json = meta.dump();
    out.messages.push_back(std::move(cm));
  }
  for (const auto& s : list_of(value, "statuses")) {
    cloud_status st;
    st.message_id = str_or_number(s, "id");
    st.status = str_or_number(s, "status");
    st.recipient = str_or_number(s, "recipient_id");
    const auto& errors = list_of(s, "errors");
    if (!errors.empty() && errors[0].is_object()) {
      auto code = errors[0].find("code");
      if (code != errors[0].end() && code->is_number_integer())
        st.error_code = code->get<int64_t>();
      st.error_text = graph_error_text(errors[0]);
    }
    out.statuses.push_back(std::move(st));
  }
}

} // namespace

webhook_batch read_webhook(const json& body, const std::string& channel) {
  webhook_batch out;
  if (!body.is_object() || !body.contains("entry")
      || !body["entry"].is_array()) {
    out.malformed = "no entry list";
    return out;
  }
  for (const auto& entry : body["entry"]) {
    if (!entry.is_object()) {
      out.malformed = "an entry is not an object";
      return out;
    }
    for (const auto& change : list_of(entry, "changes")) {
      if (!change.is_object())
        continue;
      if (str_or_number(change, "field") != "messages") {
        out.skipped.push_back("field \"" + str_or_number(change, "field")
                              + "\"");
        continue;
      }
      read_value(obj_of(change, "value"), channel, out);
    }
  }
  return out;
}

bool signature_valid(const std::string& app_secret, const std::string& body,
                     const std::string& header) {
  const std::string prefix = "sha256=";
  if (app_secret.empty() || header.compare(0, prefix.size(), prefix) != 0)
    return false;
  auto expected = chan::to_hex(chan::hmac_sha256(app_secret, body));
  std::string given = header.substr(prefix.size());
  for (auto& ch : given)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return chan::equal_in_constant_time(expected, given);
}

std::string graph_error_text(const json& error) {
  if (!error.is_object())
    return "unknown error";
  int64_t code = 0;
  if (auto c = error.find("code"); c != error.end() && c->is_number_integer())
    code = c->get<int64_t>();
  auto message = str_or_number(error, "message");
  if (message.empty())
    message = str_or_number(error, "title");
  auto details = str_or_number(obj_of(error, "error_data"), "details");
  if (code == 131047)
    return "outside the 24-hour customer service window (131047): WhatsApp "
           "accepts free-form messages only within 24 hours of the user's "
           "last message; the user has to write again (or the business "
           "sends an approved template)";
  std::string out = "(" + std::to_string(code) + ") "
                    + (message.empty() ? "error" : message);
  if (!details.empty() && details != message)
    out += ": " + details;
  return out;
}

bool rate_limit_code(int64_t code) {
  // 4: app calls, 80007: business account, 130429: throughput,
  // 131056: too many to one user.
  return code == 4 || code == 80007 || code == 130429 || code == 131056;
}

} // namespace nb::whatsapp
