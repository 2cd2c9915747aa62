// The index's vectors in memory, searched by brute force: one contiguous
// int8 matrix (each unit vector scaled to ±127, with its scale), so 100 000
// vectors of 256 dimensions take 25 MB, and cosines are accurate to about
// 0.01 — enough to rank and to spot duplicates. Past a few thousand
// vectors a search first compares sign bits (Hamming distance tracks the
// angle) and scores only the nearest few thousand exactly. Pure;
// single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nb::memory {

/// Scales `v` to unit length; false when it is zero or not finite.
bool normalize_vector(std::vector<float>& v);

class vector_set {
public:
  explicit vector_set(int32_t dims = 0) : dims_(dims) {}

  int32_t dims() const { return dims_; }
  size_t size() const { return ids_.size(); }
  size_t bytes() const {
    return data_.capacity() + scale_.capacity() * sizeof(float)
           + bits_.capacity() * 8 + ids_.capacity() * 8 + slot_.size() * 32;
  }

  /// Up to this many vectors every one is scored exactly.
  static constexpr size_t exact_limit = 4096;

  /// Adds or replaces the vector of `id` (`v`: dims() floats, unit length).
  void put(int64_t id, const float* v);
  void erase(int64_t id);
  bool contains(int64_t id) const { return slot_.count(id) > 0; }
  /// The cosine of two stored vectors (nullopt: one is missing).
  std::optional<float> similarity(int64_t a, int64_t b) const;
  void clear();

  /// The `k` most similar ids with cosine ≥ `min`, best first.
  std::vector<std::pair<int64_t, float>> top(const float* query, size_t k,
                                             float min) const;

private:
  /// Quantises `v` into `out` (dims() bytes); returns the scale.
  float quantize(const float* v, int8_t* out) const;
  /// The rows worth scoring exactly for `query` (all of them when few).
  std::vector<size_t> candidates(const int8_t* query, size_t k) const;
  size_t words() const { return (static_cast<size_t>(dims_) + 63) / 64; }
  int32_t dims_;
  std::vector<int8_t> data_;
  std::vector<uint64_t> bits_; ///< sign bits, words() per row
  std::vector<float> scale_;
  std::vector<int64_t> ids_;
  std::unordered_map<int64_t, size_t> slot_;
};

} // namespace nb::memory
