// What the user types into the terminal chat: one message per call, edited
// with libedit (arrows, emacs keys, history search) on a terminal and read
// plainly from a pipe. A line ending in a backslash continues on the next
// (the backslash goes, the line break stays). Every line typed goes into the
// history file, which the next chat loads.
#pragma once

#include <memory>
#include <string>

namespace nb {

/// Ctrl+C in the chat: SIGINT only raises a flag (no SA_RESTART, so a
/// blocking read returns); the prompt and the turn loop look at it. Call
/// from the main thread, with SIGINT blocked in every other thread (they
/// would take the signal and leave the main thread's read blocked).
void install_interrupt_flag();
/// Whether Ctrl+C was pressed since the last take; clears the flag.
bool take_interrupt();
/// Whether Ctrl+C was pressed (the flag stays).
bool interrupt_pending();

class line_input {
public:
  enum class outcome {
    message,    ///< `text` is the message (maybe several lines)
    end,        ///< Ctrl+D on an empty line, or the input ended
    interrupted ///< Ctrl+C; `text` is what had been typed so far
  };
  struct result {
    outcome what = outcome::end;
    std::string text;
  };

  /// `edit`: use libedit (stdin is a terminal). `styled`: a bold prompt.
  /// `history_path` ("" = no history) is loaded now.
  line_input(bool edit, bool styled, std::string history_path);
  ~line_input();
  line_input(const line_input&) = delete;
  line_input& operator=(const line_input&) = delete;

  result read_message();

  /// The history file could not be written: why (once), else "".
  std::string take_history_error();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb
