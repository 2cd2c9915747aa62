// The index's vectors in memory: one contiguous float32 matrix of unit
// vectors, searched by brute force (a dot product per chunk), which stays
// within a few milliseconds up to ~100 000 chunks. Pure; single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nb::memory {

/// Scales `v` to unit length; false when it is zero or not finite.
bool normalize_vector(std::vector<float>& v);

/// Dot product of two `dims`-long vectors (= cosine for unit vectors).
float dot(const float* a, const float* b, int32_t dims);

class vector_set {
public:
  explicit vector_set(int32_t dims = 0) : dims_(dims) {}

  int32_t dims() const { return dims_; }
  size_t size() const { return ids_.size(); }
  size_t bytes() const {
    return data_.capacity() * sizeof(float) + ids_.capacity() * 8
           + slot_.size() * 32;
  }

  /// Adds or replaces the vector of `id` (`v` has dims() floats).
  void put(int64_t id, const float* v);
  void erase(int64_t id);
  /// The vector of `id`, or null.
  const float* find(int64_t id) const;
  void clear();

  /// The `k` most similar ids with cosine ≥ `min`, best first.
  std::vector<std::pair<int64_t, float>> top(const float* query, size_t k,
                                             float min) const;

private:
  int32_t dims_;
  std::vector<float> data_;
  std::vector<int64_t> ids_;
  std::unordered_map<int64_t, size_t> slot_;
};

} // namespace nb::memory
