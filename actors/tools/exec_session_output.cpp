#include "actors/tools/exec_session_output.hpp"

#include <cstdio>
#include <vector>

#include "actors/tools/text.hpp"

namespace nb {

void bounded_output::append(std::string_view data) {
  if (data.empty())
    return;
  total_ += data.size();
  if (!cut_) {
    if (head_.size() + data.size() <= max_) {
      head_.append(data);
      return;
    }
    // Over the budget for the first time: keep the first half and the
    // most recent half.
    std::string all = head_;
    all.append(data);
    auto head = max_ / 2;
    head_ = all.substr(0, head);
    tail_ = all.substr(all.size() - (max_ - head));
    cut_ = true;
    return;
  }
  tail_.append(data);
  // Trim in batches so a flood costs amortised O(1) per byte.
  auto keep = max_ - head_.size();
  if (tail_.size() > 2 * keep + 65536)
    tail_.erase(0, tail_.size() - keep);
}

std::pair<std::string, uint64_t> bounded_output::drain() {
  auto keep = max_ - head_.size();
  if (tail_.size() > keep)
    tail_.erase(0, tail_.size() - keep);
  std::pair<std::string, uint64_t> out{head_ + tail_, 0};
  out.second = total_ - out.first.size();
  head_.clear();
  tail_.clear();
  total_ = 0;
  cut_ = false;
  return out;
}

std::pair<std::string, uint64_t> join_session_output(const std::string& out,
                                                     const std::string& err,
                                                     size_t max) {
  std::string all = out;
  if (!err.empty()) {
    if (!all.empty())
      all += "\n";
    all += "STDERR:\n" + err;
  }
  if (all.size() <= max)
    return {sanitize_utf8(all), 0};
  auto head = utf8_head(all, max / 2);
  auto tail = utf8_tail(all, max - max / 2);
  std::string kept{head};
  kept += tail;
  return {sanitize_utf8(kept), all.size() - kept.size()};
}

namespace {

// 2006 -> "2,006", as the original prints its counts.
std::string with_commas(uint64_t n) {
  auto digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

// The wait target as Python's repr() shows a short string.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'')
      out += std::string{"\\"} + c;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
  }
  return out + "'";
}

} // namespace

std::string format_session_poll(const exec_session_poll& poll,
                                const std::string& wait_for) {
  std::vector<std::string> parts;
  if (!poll.output.empty())
    parts.push_back(poll.output);
  if (poll.truncated > 0)
    parts.push_back("(" + with_commas(poll.truncated)
                    + " chars truncated from output)");
  if (poll.timed_out)
    parts.push_back("Error: Command timed out; session was terminated.");
  if (poll.terminated && !poll.timed_out)
    parts.push_back("Session terminated.");
  if (poll.stdin_closed)
    parts.push_back("Stdin closed.");
  if (poll.done)
    parts.push_back("Exit code: " + std::to_string(poll.exit_code));
  else
    parts.push_back("Process running. session_id: " + poll.id);
  char elapsed[48];
  std::snprintf(elapsed, sizeof elapsed, "Elapsed: %.1fs",
                static_cast<double>(poll.elapsed_ms) / 1000.0);
  parts.push_back(elapsed);
  std::string text;
  for (auto& p : parts)
    text += (text.empty() ? "" : "\n") + p;
  if (!wait_for.empty() && !poll.wait_seen)
    text += "\nWait target not observed: " + quoted(wait_for);
  return text;
}

} // namespace nb
