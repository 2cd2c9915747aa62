#include "actors/cli/line_input.hpp"

#include <cerrno>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <langinfo.h>

#include <fcntl.h>
#include <histedit.h>
#include <poll.h>
#include <unistd.h>

#include "actors/cli/edit_library.hpp"
#include "actors/cli/history_file.hpp"

namespace nb {

namespace {

volatile std::sig_atomic_t input_interrupted = 0;
/// The self-pipe: the handler writes a byte, the reader polls it beside
/// stdin. A flag alone is not enough: a Ctrl+C that lands after the check
/// and before read() starts would leave the read blocked.
int input_wake[2] = {-1, -1};

extern "C" void input_on_sigint(int) {
  int saved = errno;
  input_interrupted = 1;
  if (input_wake[1] >= 0) {
    char c = 1;
    (void)!::write(input_wake[1], &c, 1);
  }
  errno = saved;
}

/// One byte from stdin; a Ctrl+C ends the wait (-1), other interruptions
/// (a resize) do not. 1 = a byte, 0 = end of input, -1 = error or Ctrl+C.
int input_byte(unsigned char& b) {
  while (true) {
    pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {input_wake[0], POLLIN, 0}};
    int n = ::poll(p, input_wake[0] >= 0 ? 2 : 1, -1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (input_wake[0] >= 0 && (p[1].revents & POLLIN) != 0) {
      char drain[64];
      while (::read(input_wake[0], drain, sizeof drain) > 0) {
      }
      // A Ctrl+C the turn loop already took is not for the prompt.
      if (input_interrupted)
        return -1;
      continue;
    }
    if (p[0].revents == 0)
      continue;
    auto got = ::read(STDIN_FILENO, &b, 1);
    if (got == 1)
      return 1;
    if (got == 0)
      return 0;
    if (errno != EINTR)
      return -1;
  }
}

/// libedit's character reader, ours so that Ctrl+C ends el_gets at once
/// (libedit's own retries an interrupted read). Decodes UTF-8.
int input_getc(EditLine*, wchar_t* out) {
  unsigned char b = 0;
  int r = input_byte(b);
  if (r != 1)
    return r;
  size_t len = b < 0x80         ? 1
               : (b >> 5) == 6  ? 2
               : (b >> 4) == 14 ? 3
               : (b >> 3) == 30 ? 4
                                : 1;
  char32_t cp = len == 1 ? b : b & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    unsigned char c = 0;
    if ((r = input_byte(c)) != 1)
      return r;
    cp = (cp << 6) | (c & 0x3F);
  }
  *out = static_cast<wchar_t>(cp);
  return 1;
}

/// The prompt libedit shows: the client data is the prompt string.
char* input_prompt(EditLine* el) {
  void* data = nullptr;
  std::string unused; // loaded already: the editor calling us exists
  load_edit(unused)->el_get(el, EL_CLIENTDATA, &data);
  return static_cast<std::string*>(data)->data();
}

} // namespace

void install_interrupt_flag() {
  if (input_wake[0] < 0 && ::pipe2(input_wake, O_NONBLOCK | O_CLOEXEC) != 0)
    input_wake[0] = input_wake[1] = -1;
  struct sigaction sa {};
  sa.sa_handler = input_on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; // no SA_RESTART: the read must return
  ::sigaction(SIGINT, &sa, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

bool take_interrupt() {
  bool was = input_interrupted != 0;
  input_interrupted = 0;
  return was;
}

bool interrupt_pending() {
  return input_interrupted != 0;
}

struct line_input::impl {
  bool edit;
  std::string prompt; ///< with \1 around the escape sequences
  std::string main_prompt;
  std::string more_prompt; ///< after a trailing backslash
  std::unique_ptr<history_file> file;
  std::string history_error;
  bool history_error_told = false;
  const edit_library* lib = nullptr; ///< set while `edit`
  EditLine* el = nullptr;
  History* hist = nullptr;

  void remember(const std::string& line) {
    if (line.find_first_not_of(" \t") == std::string::npos)
      return;
    if (hist) {
      HistEvent ev;
      lib->history(hist, &ev, H_ENTER, line.c_str());
    }
    if (file && history_error.empty())
      history_error = file->append(line);
  }

  /// One physical line, without its line break.
  result read_line(const std::string& p) {
    prompt = p;
    if (!edit) {
      std::string printable;
      for (char c : p)
        if (c != '\1')
          printable += c;
      std::cerr << printable << std::flush;
      std::string line;
      if (!std::getline(std::cin, line))
        return {outcome::end, {}};
      return {outcome::message, line};
    }
    int count = 0;
    const char* s = lib->el_gets(el, &count);
    if (s == nullptr || count <= 0) {
      if (!take_interrupt())
        return {outcome::end, {}};
      const LineInfo* li = lib->el_line(el);
      std::string typed = li ? std::string(li->buffer, li->lastchar) : "";
      lib->el_reset(el);
      return {outcome::interrupted, typed};
    }
    std::string line(s, static_cast<size_t>(count));
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
      line.pop_back();
    return {outcome::message, line};
  }
};

line_input::line_input(bool edit, bool styled, std::string history_path)
    : impl_(std::make_unique<impl>()) {
  impl_->edit = edit;
  impl_->main_prompt = styled ? "\1\033[1;34m\1You:\1\033[0m\1 " : "You: ";
  impl_->more_prompt = styled ? "\1\033[2m\1...\1\033[0m\1 " : "... ";
  if (!history_path.empty())
    impl_->file = std::make_unique<history_file>(std::move(history_path));
  if (!edit)
    return;
  std::string missing;
  impl_->lib = load_edit(missing);
  if (impl_->lib == nullptr) { // still a chat, without arrows and history
    std::cerr << missing << "; reading lines without editing\n";
    impl_->edit = false;
    return;
  }
  auto& lib = *impl_->lib;
  // libedit converts what it reads and shows through the C library's
  // multibyte functions: without a UTF-8 LC_CTYPE, non-ASCII text is lost.
  if (!std::setlocale(LC_CTYPE, "")
      || std::strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
    std::setlocale(LC_CTYPE, "C.UTF-8");
  impl_->hist = lib.history_init();
  HistEvent ev;
  lib.history(impl_->hist, &ev, H_SETSIZE, 1000);
  if (impl_->file)
    for (const auto& e : impl_->file->load())
      lib.history(impl_->hist, &ev, H_ENTER, e.c_str());
  impl_->el = lib.el_init("nanobot", stdin, stderr, stderr);
  lib.el_set(impl_->el, EL_CLIENTDATA, &impl_->prompt);
  lib.el_set(impl_->el, EL_EDITOR, "emacs");
  lib.el_set(impl_->el, EL_PROMPT_ESC, input_prompt, '\1');
  lib.el_set(impl_->el, EL_HIST, lib.history, impl_->hist);
  lib.el_set(impl_->el, EL_GETCFN, input_getc);
  // The user's ~/.editrc, as every libedit program reads it.
  lib.el_source(impl_->el, nullptr);
}

line_input::~line_input() {
  if (impl_->el)
    impl_->lib->el_end(impl_->el);
  if (impl_->hist)
    impl_->lib->history_end(impl_->hist);
}

line_input::result line_input::read_message() {
  std::string message;
  bool more = false;
  while (true) {
    auto r = impl_->read_line(more ? impl_->more_prompt : impl_->main_prompt);
    if (r.what == outcome::interrupted)
      return {outcome::interrupted, message + r.text};
    if (r.what == outcome::end)
      return message.empty() ? r : result{outcome::message, message};
    impl_->remember(r.text);
    if (!r.text.empty() && r.text.back() == '\\') {
      r.text.pop_back();
      message += r.text + "\n";
      more = true;
      continue;
    }
    return {outcome::message, message + r.text};
  }
}

std::string line_input::take_history_error() {
  if (impl_->history_error.empty() || impl_->history_error_told)
    return {};
  impl_->history_error_told = true;
  return impl_->history_error;
}

} // namespace nb
