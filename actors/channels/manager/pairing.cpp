#include "actors/channels/manager/pairing.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "actors/common/log.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

std::string new_code(std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, sizeof(alphabet) - 2);
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == 4)
      out += '-';
    out += alphabet[pick(rng)];
  }
  return out;
}

} // namespace

std::string normalise_pairing_code(const std::string& text) {
  std::string raw;
  for (char c : text) {
    if (c == '-' || c == ' ')
      continue;
    auto u = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (std::string_view{alphabet}.find(u) == std::string_view::npos)
      return "";
    raw += u;
  }
  if (raw.size() != 8)
    return "";
  return raw.substr(0, 4) + "-" + raw.substr(4);
}

void pairing_book::drop_expired(int64_t now) {
  std::erase_if(pending_,
                [now](const pairing_request& r) { return r.expires_at <= now; });
}

const pairing_request& pairing_book::request(const std::string& channel,
                                             const std::string& sender,
                                             const std::string& chat,
                                             int64_t now,
                                             std::mt19937_64& rng) {
  drop_expired(now);
  for (auto& r : pending_)
    if (r.channel == channel && r.sender_id == sender)
      return r;
  std::string code;
  do {
    code = new_code(rng);
  } while (std::any_of(pending_.begin(), pending_.end(),
                       [&](const pairing_request& r) { return r.code == code; }));
  pending_.push_back({code, channel, sender, chat, now + pairing_ttl_s});
  return pending_.back();
}

std::optional<pairing_request> pairing_book::approve(const std::string& code,
                                                     int64_t now) {
  drop_expired(now);
  auto want = normalise_pairing_code(code);
  auto i = std::find_if(pending_.begin(), pending_.end(),
                        [&](const pairing_request& r) { return r.code == want; });
  if (want.empty() || i == pending_.end())
    return std::nullopt;
  auto out = *i;
  pending_.erase(i);
  approved_[out.channel].insert(out.sender_id);
  return out;
}

bool pairing_book::deny(const std::string& code) {
  auto want = normalise_pairing_code(code);
  return std::erase_if(pending_, [&](const pairing_request& r) {
           return r.code == want;
         }) > 0;
}

bool pairing_book::is_approved(const std::string& channel,
                               const std::string& sender) const {
  auto i = approved_.find(channel);
  return i != approved_.end() && i->second.count(sender) > 0;
}

std::vector<pairing_request> pairing_book::pending(int64_t now) const {
  std::vector<pairing_request> out;
  for (const auto& r : pending_)
    if (r.expires_at > now)
      out.push_back(r);
  return out;
}

std::string pairing_book::to_json() const {
  json doc{{"pending", json::array()}, {"approved", json::object()}};
  for (const auto& r : pending_)
    doc["pending"].push_back({{"code", r.code},
                              {"channel", r.channel},
                              {"sender_id", r.sender_id},
                              {"chat_id", r.chat_id},
                              {"expires_at", r.expires_at}});
  for (const auto& [channel, ids] : approved_)
    doc["approved"][channel] = ids;
  return doc.dump(2) + "\n";
}

std::optional<pairing_book> pairing_book::from_json(const std::string& text) {
  auto doc = json::parse(text, nullptr, false);
  if (!doc.is_object())
    return std::nullopt;
  pairing_book out;
  if (auto p = doc.find("pending"); p != doc.end() && p->is_array())
    for (const auto& r : *p) {
      if (!r.is_object())
        continue;
      auto text = [&r](const char* key) {
        auto i = r.find(key);
        return i != r.end() && i->is_string() ? i->get<std::string>() : "";
      };
      pairing_request q;
      q.code = normalise_pairing_code(text("code"));
      q.channel = text("channel");
      q.sender_id = text("sender_id");
      q.chat_id = text("chat_id");
      auto exp = r.find("expires_at");
      q.expires_at = exp != r.end() && exp->is_number_integer()
                       ? exp->get<int64_t>() : 0;
      if (!q.code.empty() && !q.channel.empty() && !q.sender_id.empty())
        out.pending_.push_back(std::move(q));
    }
  if (auto a = doc.find("approved"); a != doc.end() && a->is_object())
    for (const auto& [channel, ids] : a->items()) {
      if (!ids.is_array())
        continue;
      for (const auto& id : ids)
        if (id.is_string())
          out.approved_[channel].insert(id.get<std::string>());
    }
  return out;
}

pairing_book load_pairing_book(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return {}; // no file yet
  std::ostringstream buf;
  buf << in.rdbuf();
  if (auto book = pairing_book::from_json(buf.str()))
    return *book;
  auto aside = path + ".corrupt";
  std::rename(path.c_str(), aside.c_str());
  log::get("channels")->warn("{} is not valid JSON; moved it to {} and "
                             "started with no approved senders", path, aside);
  return {};
}

} // namespace nb
