// The dedup keys of recently settled messages, oldest first, kept as 64-bit
// digests: a redelivery of one of them is a duplicate. A key such as
// "telegram\n<chat>\n<message id>" costs ~250 bytes as strings in a deque
// and a map; its digest ~40 (the inbox remembers 20 000 of them). The
// digest is the first 8 bytes of SHA-256, so no sender can make another
// chat's future message look like one already seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_set>

namespace nb::inbox {

/// What one digest takes in the journal's seen record ("<16 hex>",).
inline constexpr int64_t seen_digest_bytes = 19;

class seen_keys {
public:
  explicit seen_keys(size_t limit = 20000) : limit_(limit) {}

  static uint64_t digest(const std::string& key);

  /// Remembers `key` (its digest), forgetting the oldest past the limit.
  void add(const std::string& key) { add_digest(digest(key)); }
  void add_digest(uint64_t d);
  bool contains(const std::string& key) const {
    return set_.count(digest(key)) > 0;
  }
  void set_limit(size_t limit);

  size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }
  /// Oldest first.
  const std::deque<uint64_t>& digests() const { return order_; }

private:
  size_t limit_;
  std::deque<uint64_t> order_;
  std::unordered_multiset<uint64_t> set_;
};

} // namespace nb::inbox
