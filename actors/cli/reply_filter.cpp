#include "actors/cli/reply_filter.hpp"

namespace nb {

namespace {

constexpr std::string_view filter_open = "[Runtime Context";
constexpr std::string_view filter_close = "[/Runtime Context]";

/// The longest tail of `s` that is a proper prefix of `marker`.
size_t filter_partial(std::string_view s, std::string_view marker) {
  for (size_t n = std::min(s.size(), marker.size() - 1); n > 0; --n)
    if (s.substr(s.size() - n) == marker.substr(0, n))
      return n;
  return 0;
}

} // namespace

std::string reply_filter::feed(std::string_view delta) {
  held_ += delta;
  std::string out;
  while (true) {
    if (inside_) {
      auto end = held_.find(filter_close);
      if (end == std::string::npos) {
        // Keep only what could be the start of the closing marker.
        held_.erase(0, held_.size() - filter_partial(held_, filter_close));
        return out;
      }
      held_.erase(0, end + filter_close.size());
      inside_ = false;
      continue;
    }
    auto start = held_.find(filter_open);
    if (start == std::string::npos) {
      // Held back: what may be the marker's start, and the white space
      // before it (the gateway puts a blank line before the block).
      size_t cut = held_.size() - filter_partial(held_, filter_open);
      while (cut > 0 && (held_[cut - 1] == '\n' || held_[cut - 1] == ' '))
        --cut;
      out += held_.substr(0, cut);
      held_.erase(0, cut);
      return out;
    }
    // The blank lines the gateway put before the block go with it.
    auto text = held_.substr(0, start);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
      text.pop_back();
    out += text;
    held_.erase(0, start + filter_open.size());
    inside_ = true;
  }
}

std::string reply_filter::finish() {
  std::string out = inside_ ? std::string{} : held_;
  held_.clear();
  inside_ = false;
  return out;
}

std::string strip_runtime_metadata(std::string_view text) {
  reply_filter f;
  auto out = f.feed(text);
  return out + f.finish();
}

} // namespace nb
