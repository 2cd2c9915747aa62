// exec's result text: nanobot's layout, cut in the middle when too long.
#include "actors/tools/exec_process.hpp"

#include <vector>

#include "actors/tools/text.hpp"

namespace nb {

std::string format_exec_output(const process_result& r, size_t max) {
  struct piece {
    std::string text;
    uint64_t gap = 0; ///< bytes dropped after this text
  };
  std::vector<piece> parts;
  auto add_stream = [&](const captured_stream& s, const std::string& lead) {
    parts.push_back({lead + s.head, s.total - s.head.size() - s.tail.size()});
    parts.push_back({s.tail, 0});
  };
  auto blank = [](const captured_stream& s) {
    return (s.head + s.tail).find_first_not_of(" \t\r\n") == std::string::npos;
  };
  bool any = false;
  if (r.out.total > 0) {
    add_stream(r.out, "");
    any = true;
  }
  if (!blank(r.err)) {
    add_stream(r.err, any ? "\nSTDERR:\n" : "STDERR:\n");
    any = true;
  }
  std::string exit_line = any ? "\n\nExit code: " : "\nExit code: ";
  exit_line += std::to_string(r.exit_code);
  parts.push_back({std::move(exit_line), 0});
  uint64_t total = 0;
  bool gaps = false;
  for (auto& p : parts) {
    total += p.text.size() + p.gap;
    gaps = gaps || p.gap > 0;
  }
  if (total <= max && !gaps) {
    std::string all;
    for (auto& p : parts)
      all += p.text;
    return sanitize_utf8(all);
  }
  // Every gap has at least `max` kept bytes on each side, so both halves
  // come from kept text.
  auto half = max / 2;
  std::string head;
  for (auto& p : parts) {
    head += p.text;
    if (head.size() >= half || p.gap > 0)
      break;
  }
  std::string tail;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (it->gap > 0 && tail.size() >= half)
      break;
    tail = it->text + tail;
    if (tail.size() >= half)
      break;
  }
  auto h = utf8_head(head, half);
  auto t = utf8_tail(tail, half);
  auto dropped = total - h.size() - t.size();
  return sanitize_utf8(std::string{h} + "\n\n... (" + std::to_string(dropped)
                       + " chars truncated) ...\n\n" + std::string{t});
}

} // namespace nb
