#include "actors/evaluator/evaluator_prompt.hpp"

#include <fstream>
#include <sstream>

#include "actors/common/utf8.hpp"

namespace nb {

namespace {

// Our own wording; the model must call evaluate_notification.
const char* const builtin_prompt =
  "You are the notification gate of a personal assistant that works in the "
  "background (scheduled checks, periodic tasks). You see the task the "
  "assistant was given and the answer it produced. Decide whether that "
  "answer is worth interrupting the user for, and report your decision by "
  "calling the evaluate_notification tool exactly once. Do not reply with "
  "plain text.\n"
  "\n"
  "Set should_notify to true when the answer contains something the user "
  "can act on or would want to know now: new or changed information, a "
  "problem or an error, a finished piece of work or a deliverable, a "
  "reminder or timer the user set up, or anything the user explicitly "
  "asked to be told about. A short reminder should normally go through.\n"
  "\n"
  "Set should_notify to false when the answer is routine: a check that "
  "found nothing new, a statement that all is well, an empty or "
  "placeholder answer, or text that talks about the assistant's own "
  "instructions, configuration or task files (such as HEARTBEAT.md) or "
  "about whether to notify instead of carrying information for the user.\n"
  "\n"
  "Give a one-sentence reason with your decision.";

bool is_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
         || c == '\v';
}

void rstrip(std::string& s) {
  while (!s.empty() && is_space(static_cast<unsigned char>(s.back())))
    s.pop_back();
}

} // namespace

const std::string& default_evaluator_prompt() {
  static const std::string text = builtin_prompt;
  return text;
}

bool is_utf8_text(const std::string& s) {
  return s.find('\0') == std::string::npos && !first_invalid_utf8(s);
}

bool truncate_chars(std::string& s, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80)
      continue; // continuation byte: part of the current character
    if (chars == max_chars) {
      s.resize(i);
      s += prompt_truncation_marker;
      return true;
    }
    ++chars;
  }
  return false;
}

evaluator_prompt_choice resolve_evaluator_prompt(const std::string& workspace) {
  evaluator_prompt_choice out;
  out.text = default_evaluator_prompt();
  auto path = workspace + "/" + evaluator_prompt_rel_path;
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return out; // no override: the normal case
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    out.warning = path + " could not be read; using the built-in prompt";
    return out;
  }
  auto text = buf.str();
  if (!is_utf8_text(text)) {
    out.warning = path + " is not UTF-8 text; using the built-in prompt";
    return out;
  }
  rstrip(text);
  if (text.empty())
    return out; // an emptied file means "back to the default"
  if (truncate_chars(text, evaluator_prompt_max_chars))
    out.warning = path + " is longer than "
                  + std::to_string(evaluator_prompt_max_chars)
                  + " characters; the rest is ignored";
  out.text = std::move(text);
  out.custom = true;
  return out;
}

} // namespace nb
