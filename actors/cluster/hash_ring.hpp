// Consistent hashing of session keys onto agent nodes. Pure data: no actors,
// no I/O, so the placement rules are tested as a table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nb {

/// A 64-bit hash that is the same in every process and on every machine
/// (std::hash is not promised to be), well mixed for similar keys.
uint64_t stable_hash(std::string_view text);

/// Each node owns `virtual_nodes` points on a 64-bit circle; a key belongs to
/// the first point at or after its hash. Adding a node moves only keys that
/// now fall on its points; removing one moves only its own keys.
class hash_ring {
public:
  explicit hash_ring(int virtual_nodes = 64);

  /// Adds `node` (no-op when present).
  void add(const std::string& node);
  /// Removes `node` (no-op when absent).
  void remove(const std::string& node);
  bool contains(const std::string& node) const;
  bool empty() const { return nodes_.empty(); }
  size_t size() const { return nodes_.size(); }
  const std::vector<std::string>& nodes() const { return nodes_; }

  /// The node owning `key`; nullopt when the ring is empty.
  std::optional<std::string> owner(std::string_view key) const;

private:
  int virtual_nodes_;
  std::vector<std::string> nodes_;        ///< sorted
  std::map<uint64_t, std::string> points_;
};

} // namespace nb
