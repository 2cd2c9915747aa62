#include "actors/channels/manager/access.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace nb {

namespace {

bool flag(const nlohmann::json& meta, const char* key) {
  auto i = meta.find(key);
  return i != meta.end() && i->is_boolean() && i->get<bool>();
}

bool listed(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

} // namespace

access_verdict check_access(const channel_options& opts,
                            const pairing_book& book, const inbound_msg& msg) {
  auto meta = nlohmann::json::parse(msg.metadata_json, nullptr, false);
  if (!meta.is_object())
    meta = nlohmann::json::object();
  bool group = flag(meta, "_is_group");
  if (group) {
    if (opts.groups == group_policy::mention && !flag(meta, "_mentioned"))
      return access_verdict::skip_group;
    if (opts.groups == group_policy::allowlist
        && !listed(opts.group_allow_from, msg.chat_id))
      return access_verdict::skip_group;
  }
  if (opts.allow_from) {
    // Exact, opaque matches only: "*" is the one wildcard.
    // An empty list denies everyone, approvals included.
    const auto& ids = *opts.allow_from;
    if (listed(ids, "*") || listed(ids, msg.sender_id)
        || (!ids.empty() && book.is_approved(msg.channel, msg.sender_id)))
      return access_verdict::allow;
    return access_verdict::deny;
  }
  if (book.is_approved(msg.channel, msg.sender_id))
    return access_verdict::allow;
  return group ? access_verdict::deny : access_verdict::pair;
}

} // namespace nb
