// Tools: the output side of exec background sessions. What a session's
// streams wrote since the last poll is kept within a budget (its first and
// its most recent bytes, so a chatty process cannot grow the gateway), and
// a poll becomes the original's text: the output, notes, then "Process
// running. session_id: ..." or "Exit code: N", then "Elapsed: x.xs".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "messages/exec_session.hpp"

namespace nb {

/// What one stream of a session wrote since the last drain: the first
/// `max / 2` bytes and the most recent ones, within `max` once drained.
class bounded_output {
public:
  explicit bounded_output(size_t max) : max_(max) {
    // nop
  }

  void append(std::string_view data);

  /// Whether anything arrived since the last drain.
  bool empty() const { return total_ == 0; }

  /// Bytes held now (at most `max`, plus a batch the next trim drops).
  size_t held() const { return head_.size() + tail_.size(); }

  /// Returns what it kept (head then tail) and how many bytes it dropped,
  /// and starts over.
  std::pair<std::string, uint64_t> drain();

  /// Returns everything it holds (for searching at the start of a wait).
  std::string held_text() const { return head_ + tail_; }

private:
  size_t max_;
  std::string head_;
  std::string tail_;
  uint64_t total_ = 0;
  bool cut_ = false;
};

/// Joins a poll's stdout and stderr as exec does ("STDERR:\n" before the
/// second) and keeps the first and last halves of `max` bytes; returns the
/// text and the bytes it left out.
std::pair<std::string, uint64_t>
join_session_output(const std::string& out, const std::string& err, size_t max);

/// Returns the text the model sees for `poll` (write_stdin and exec with
/// yield_time_ms); `wait_for` adds the "Wait target not observed" note
/// when the poll did not see it.
std::string format_session_poll(const exec_session_poll& poll,
                                const std::string& wait_for = {});

} // namespace nb
