#include "actors/inbox/seen_keys.hpp"

#include <openssl/sha.h>

namespace nb::inbox {

uint64_t seen_keys::digest(const std::string& key) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), md);
  uint64_t d = 0;
  for (int i = 0; i < 8; ++i)
    d = (d << 8) | md[i];
  return d;
}

void seen_keys::add_digest(uint64_t d) {
  order_.push_back(d);
  set_.insert(d);
  set_limit(limit_);
}

void seen_keys::set_limit(size_t limit) {
  limit_ = limit;
  while (order_.size() > limit_) {
    set_.erase(set_.find(order_.front()));
    order_.pop_front();
  }
}

} // namespace nb::inbox
