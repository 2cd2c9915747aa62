#include "actors/inbox/journal_records.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace nb::inbox {

using json = nlohmann::json;

namespace {

json msg_json(const inbound_msg& m) {
  json j{{"channel", m.channel},       {"sender", m.sender_id},
         {"chat", m.chat_id},          {"content", m.content},
         {"meta", m.metadata_json}};
  if (!m.media.empty())
    j["media"] = m.media;
  if (!m.session_key_override.empty())
    j["key"] = m.session_key_override;
  if (m.wants_stream)
    j["stream"] = true;
  return j;
}

// A record that passed its CRC can still hold a field of the wrong type
// (a bad disk, an older or newer writer): such a field reads as absent.
std::string text_of(const json& j, const char* key,
                    const char* fallback = "") {
  auto i = j.find(key);
  return i != j.end() && i->is_string() ? i->get<std::string>()
                                        : std::string{fallback};
}

int64_t count_of(const json& j, const char* key, int64_t fallback) {
  auto i = j.find(key);
  return i != j.end() && i->is_number_integer() ? i->get<int64_t>()
                                                : fallback;
}

inbound_msg msg_of(const json& j) {
  inbound_msg m;
  m.channel = text_of(j, "channel");
  m.sender_id = text_of(j, "sender");
  m.chat_id = text_of(j, "chat");
  m.content = text_of(j, "content");
  m.metadata_json = text_of(j, "meta", "{}");
  if (auto i = j.find("media"); i != j.end() && i->is_array())
    for (auto& p : *i)
      if (p.is_string())
        m.media.push_back(p.get<std::string>());
  m.session_key_override = text_of(j, "key");
  auto stream = j.find("stream");
  m.wants_stream = stream != j.end() && stream->is_boolean()
                   && stream->get<bool>();
  return m;
}

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// A digest written as 16 hex digits; none for anything else.
std::optional<uint64_t> digest_of(const json& h) {
  if (!h.is_string())
    return std::nullopt;
  const auto& text = h.get_ref<const std::string&>();
  if (text.size() != 16)
    return std::nullopt;
  uint64_t d = 0;
  for (char c : text) {
    int v = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                   : -1;
    if (v < 0)
      return std::nullopt;
    d = (d << 4) | static_cast<uint64_t>(v);
  }
  return d;
}

} // namespace

std::string dedup_key(const inbound_msg& msg) {
  if (msg.metadata_json.find("\"_message_id\"") == std::string::npos)
    return {};
  auto meta = json::parse(msg.metadata_json, nullptr, false);
  if (!meta.is_object())
    return {};
  auto i = meta.find("_message_id");
  if (i == meta.end())
    return {};
  std::string id;
  if (i->is_string())
    id = i->get<std::string>();
  else if (i->is_number_integer())
    id = std::to_string(i->get<int64_t>());
  if (id.empty())
    return {};
  return msg.channel + '\n' + msg.chat_id + '\n' + id;
}

std::string head_record(const std::string& epoch, int64_t next_seq) {
  return frame(dump(json{{"t", "head"}, {"epoch", epoch}, {"next", next_seq}}));
}

std::string put_record(const journal_entry& e) {
  json j{{"t", "put"}, {"id", e.id}, {"m", msg_json(e.msg)}};
  if (!e.dedup_key.empty())
    j["dk"] = e.dedup_key;
  if (e.attempts > 0)
    j["n"] = e.attempts;
  return frame(dump(j));
}

std::string settle_record(const std::string& id) {
  return frame(dump(json{{"t", "settle"}, {"id", id}}));
}

std::string seen_record(const seen_keys& seen) {
  json digests = json::array();
  char hex[17];
  for (auto d : seen.digests()) {
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(d));
    digests.push_back(hex);
  }
  return frame(dump(json{{"t", "seen"}, {"dh", std::move(digests)}}));
}

int64_t seq_of(const std::string& id) {
  auto dot = id.rfind('.');
  if (dot == std::string::npos || dot + 1 >= id.size())
    return 0;
  int64_t v = 0;
  for (auto c : id.substr(dot + 1)) {
    if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10)
      return 0; // not a number, or past any sequence a journal reaches
    v = v * 10 + (c - '0');
  }
  return v;
}

journal_image read_journal(std::string_view bytes, size_t seen_limit) {
  journal_image img;
  auto scan = scan_frames(bytes);
  img.good_bytes = scan.good_bytes;
  img.tail = scan.tail;
  std::vector<journal_entry> entries;
  std::unordered_map<std::string, size_t> where; // id -> index in entries
  std::vector<bool> settled;
  img.seen.set_limit(seen_limit);
  auto remember = [&](const std::string& key) {
    if (!key.empty())
      img.seen.add(key);
  };
  for (auto payload : scan.payloads) {
    auto j = json::parse(payload, nullptr, false);
    if (!j.is_object() || !j.contains("t") || !j["t"].is_string()) {
      ++img.bad_records;
      continue;
    }
    auto t = j["t"].get<std::string>();
    if (t == "head") {
      img.epoch = text_of(j, "epoch");
      img.next_seq = std::max(img.next_seq, count_of(j, "next", 1));
    } else if (t == "put" && j.contains("m") && j["m"].is_object()) {
      journal_entry e;
      e.id = text_of(j, "id");
      e.dedup_key = text_of(j, "dk");
      e.attempts = static_cast<int32_t>(
        std::clamp<int64_t>(count_of(j, "n", 0), 0, 1000));
      e.msg = msg_of(j["m"]);
      e.msg.inbox_id = e.id;
      img.next_seq = std::max(img.next_seq, seq_of(e.id) + 1);
      if (e.id.empty() || where.count(e.id)) {
        ++img.bad_records;
        continue;
      }
      where[e.id] = entries.size();
      entries.push_back(std::move(e));
      settled.push_back(false);
    } else if (t == "settle") {
      auto i = where.find(text_of(j, "id"));
      if (i != where.end() && !settled[i->second]) {
        settled[i->second] = true;
        remember(entries[i->second].dedup_key);
      }
    } else if (t == "seen" && j.contains("dh") && j["dh"].is_array()) {
      for (auto& h : j["dh"])
        if (auto d = digest_of(h))
          img.seen.add_digest(*d);
    } else if (t == "seen" && j.contains("dk") && j["dk"].is_array()) {
      for (auto& k : j["dk"])
        if (k.is_string())
          remember(k.get<std::string>());
    } else {
      ++img.bad_records;
    }
  }
  for (size_t i = 0; i < entries.size(); ++i)
    if (!settled[i])
      img.live.push_back(std::move(entries[i]));
  return img;
}

std::string compacted(const journal_image& img) {
  std::string out = head_record(img.epoch, img.next_seq);
  for (auto& e : img.live)
    out += put_record(e);
  if (!img.seen.empty())
    out += seen_record(img.seen);
  return out;
}

} // namespace nb::inbox
