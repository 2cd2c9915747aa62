#include "actors/memory_index/vector_set.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <queue>

namespace nb::memory {

bool normalize_vector(std::vector<float>& v) {
  double sum = 0;
  for (float x : v) {
    if (!std::isfinite(x))
      return false;
    sum += static_cast<double>(x) * x;
  }
  if (sum <= 0 || !std::isfinite(sum))
    return false;
  auto scale = static_cast<float>(1.0 / std::sqrt(sum));
  for (auto& x : v)
    x *= scale;
  return true;
}

float dot(const float* a, const float* b, int32_t dims) {
  // Eight partial sums: the compiler turns this into SIMD without
  // -ffast-math (a single running sum would have to stay in order).
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int32_t i = 0;
  for (; i + 8 <= dims; i += 8)
    for (int j = 0; j < 8; ++j)
      acc[j] += a[i + j] * b[i + j];
  float s = 0;
  for (; i < dims; ++i)
    s += a[i] * b[i];
  for (float x : acc)
    s += x;
  return s;
}

void vector_set::put(int64_t id, const float* v) {
  auto d = static_cast<size_t>(dims_);
  if (auto it = slot_.find(id); it != slot_.end()) {
    std::memcpy(data_.data() + it->second * d, v, d * sizeof(float));
    return;
  }
  slot_[id] = ids_.size();
  ids_.push_back(id);
  data_.insert(data_.end(), v, v + d);
}

void vector_set::erase(int64_t id) {
  auto it = slot_.find(id);
  if (it == slot_.end())
    return;
  auto d = static_cast<size_t>(dims_);
  auto at = it->second;
  auto last = ids_.size() - 1;
  if (at != last) {
    std::memcpy(data_.data() + at * d, data_.data() + last * d,
                d * sizeof(float));
    ids_[at] = ids_[last];
    slot_[ids_[at]] = at;
  }
  ids_.pop_back();
  data_.resize(ids_.size() * d);
  slot_.erase(id);
}

const float* vector_set::find(int64_t id) const {
  auto it = slot_.find(id);
  return it == slot_.end()
           ? nullptr
           : data_.data() + it->second * static_cast<size_t>(dims_);
}

void vector_set::clear() {
  data_.clear();
  ids_.clear();
  slot_.clear();
}

std::vector<std::pair<int64_t, float>>
vector_set::top(const float* query, size_t k, float min) const {
  using entry = std::pair<float, size_t>; // score, row
  std::priority_queue<entry, std::vector<entry>, std::greater<>> best;
  auto d = static_cast<size_t>(dims_);
  for (size_t row = 0; row < ids_.size(); ++row) {
    auto s = dot(query, data_.data() + row * d, dims_);
    if (s < min)
      continue;
    if (best.size() < k) {
      best.emplace(s, row);
    } else if (s > best.top().first) {
      best.pop();
      best.emplace(s, row);
    }
  }
  std::vector<std::pair<int64_t, float>> out;
  out.reserve(best.size());
  while (!best.empty()) {
    out.emplace_back(ids_[best.top().second], best.top().first);
    best.pop();
  }
  std::reverse(out.begin(), out.end());
  return out;
}

} // namespace nb::memory
