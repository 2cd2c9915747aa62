#include "actors/memory_index/vector_set.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <queue>

namespace nb::memory {

namespace {

/// Integer dot product; the compiler vectorises the widening multiply-add.
int32_t dot_i8(const int8_t* a, const int8_t* b, int32_t dims) {
  int32_t acc = 0;
  for (int32_t i = 0; i < dims; ++i)
    acc += static_cast<int16_t>(a[i]) * static_cast<int16_t>(b[i]);
  return acc;
}

} // namespace

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

float vector_set::quantize(const float* v, int8_t* out) const {
  float max = 0;
  for (int32_t i = 0; i < dims_; ++i)
    max = std::max(max, std::fabs(v[i]));
  auto scale = max > 0 ? max / 127.0f : 1.0f;
  for (int32_t i = 0; i < dims_; ++i)
    out[i] = static_cast<int8_t>(std::lround(v[i] / scale));
  return scale;
}

void vector_set::put(int64_t id, const float* v) {
  auto d = static_cast<size_t>(dims_);
  size_t row;
  if (auto it = slot_.find(id); it != slot_.end()) {
    row = it->second;
  } else {
    row = ids_.size();
    slot_[id] = row;
    ids_.push_back(id);
    data_.resize(data_.size() + d);
    bits_.resize(bits_.size() + words());
    scale_.push_back(1);
  }
  scale_[row] = quantize(v, data_.data() + row * d);
  auto* b = bits_.data() + row * words();
  std::fill(b, b + words(), 0);
  for (size_t i = 0; i < d; ++i)
    if (v[i] > 0)
      b[i / 64] |= uint64_t{1} << (i % 64);
}

void vector_set::erase(int64_t id) {
  auto it = slot_.find(id);
  if (it == slot_.end())
    return;
  auto d = static_cast<size_t>(dims_);
  auto at = it->second;
  auto last = ids_.size() - 1;
  if (at != last) {
    std::memcpy(data_.data() + at * d, data_.data() + last * d, d);
    std::memcpy(bits_.data() + at * words(), bits_.data() + last * words(),
                words() * sizeof(uint64_t));
    scale_[at] = scale_[last];
    ids_[at] = ids_[last];
    slot_[ids_[at]] = at;
  }
  ids_.pop_back();
  scale_.pop_back();
  data_.resize(ids_.size() * d);
  bits_.resize(ids_.size() * words());
  slot_.erase(id);
}

std::optional<float> vector_set::similarity(int64_t a, int64_t b) const {
  auto ia = slot_.find(a);
  auto ib = slot_.find(b);
  if (ia == slot_.end() || ib == slot_.end())
    return std::nullopt;
  auto d = static_cast<size_t>(dims_);
  return static_cast<float>(dot_i8(data_.data() + ia->second * d,
                                   data_.data() + ib->second * d, dims_))
         * scale_[ia->second] * scale_[ib->second];
}

void vector_set::clear() {
  data_.clear();
  bits_.clear();
  scale_.clear();
  ids_.clear();
  slot_.clear();
}

std::vector<size_t> vector_set::candidates(const int8_t* query,
                                           size_t k) const {
  std::vector<size_t> rows;
  auto n = ids_.size();
  auto want = std::max<size_t>(k * 40, exact_limit);
  if (n <= want) {
    rows.resize(n);
    for (size_t r = 0; r < n; ++r)
      rows[r] = r;
    return rows;
  }
  // Hamming distance of the sign bits, then the nearest `want` rows
  // (a counting pass over the distances, no sort).
  std::vector<uint64_t> qb(words(), 0);
  for (int32_t i = 0; i < dims_; ++i)
    if (query[i] > 0)
      qb[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64);
  std::vector<uint16_t> ham(n);
  std::vector<size_t> count(static_cast<size_t>(dims_) + 2, 0);
  for (size_t r = 0; r < n; ++r) {
    const uint64_t* b = bits_.data() + r * words();
    int h = 0;
    for (size_t w = 0; w < words(); ++w)
      h += __builtin_popcountll(b[w] ^ qb[w]);
    ham[r] = static_cast<uint16_t>(h);
    ++count[static_cast<size_t>(h)];
  }
  size_t limit = 0, seen = 0;
  while (limit < count.size() && seen + count[limit] < want)
    seen += count[limit++];
  rows.reserve(want + count[std::min(limit, count.size() - 1)]);
  for (size_t r = 0; r < n; ++r)
    if (ham[r] <= limit)
      rows.push_back(r);
  return rows;
}

std::vector<std::pair<int64_t, float>>
vector_set::top(const float* query, size_t k, float min) const {
  std::vector<int8_t> q(static_cast<size_t>(dims_));
  auto qs = quantize(query, q.data());
  using entry = std::pair<float, size_t>; // score, row
  std::priority_queue<entry, std::vector<entry>, std::greater<>> best;
  auto d = static_cast<size_t>(dims_);
  for (auto row : candidates(q.data(), k)) {
    auto s = static_cast<float>(dot_i8(q.data(), data_.data() + row * d,
                                       dims_))
             * qs * scale_[row];
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
