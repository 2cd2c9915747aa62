#include "actors/cluster/hash_ring.hpp"

#include <algorithm>

namespace nb {

uint64_t stable_hash(std::string_view text) {
  // FNV-1a, then the splitmix64 finaliser: FNV alone clusters keys that
  // differ only in their last characters ("api:1", "api:2", ...).
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return h;
}

hash_ring::hash_ring(int virtual_nodes)
  : virtual_nodes_(std::max(1, virtual_nodes)) {}

void hash_ring::add(const std::string& node) {
  if (contains(node))
    return;
  nodes_.insert(std::lower_bound(nodes_.begin(), nodes_.end(), node), node);
  for (int i = 0; i < virtual_nodes_; ++i) {
    auto point = stable_hash(node + '#' + std::to_string(i));
    // Two nodes hashing to one point: the smaller name wins, whatever the
    // order they joined in, so every gateway computes the same owner.
    auto [it, inserted] = points_.emplace(point, node);
    if (!inserted && node < it->second)
      it->second = node;
  }
}

void hash_ring::remove(const std::string& node) {
  auto i = std::lower_bound(nodes_.begin(), nodes_.end(), node);
  if (i == nodes_.end() || *i != node)
    return;
  nodes_.erase(i);
  // Rebuild: a point the removed node won in a collision goes back to the
  // loser, exactly as if the removed node had never joined.
  points_.clear();
  auto rest = std::move(nodes_);
  nodes_.clear();
  for (auto& n : rest)
    add(n);
}

bool hash_ring::contains(const std::string& node) const {
  return std::binary_search(nodes_.begin(), nodes_.end(), node);
}

std::optional<std::string> hash_ring::owner(std::string_view key) const {
  if (points_.empty())
    return std::nullopt;
  auto i = points_.lower_bound(stable_hash(key));
  if (i == points_.end())
    i = points_.begin();
  return i->second;
}

} // namespace nb
