#include "actors/cli/cli_chat.hpp"

#include <chrono>
#include <csignal>
#include <iostream>

#include <unistd.h>

#include <caf/scoped_actor.hpp>

#include "actors/cli/line_input.hpp"
#include "actors/cli/reply_view.hpp"
#include "actors/cli/term_text.hpp"

namespace nb {

namespace {

struct route {
  std::string chat_id;
  std::string key_override;
};

route route_for(const std::string& session) {
  auto colon = session.find(':');
  if (colon == std::string::npos)
    return {session, ""};
  if (session.compare(0, colon, "cli") == 0)
    return {session.substr(colon + 1), ""};
  return {session.substr(colon + 1), session};
}

inbound_msg chat_message(const cli_options& opts, const std::string& text,
                         caf::scoped_actor& self) {
  auto r = route_for(opts.session);
  inbound_msg in;
  in.channel = "cli";
  in.sender_id = "user";
  in.chat_id = r.chat_id;
  in.session_key_override = r.key_override;
  in.content = text;
  in.wants_stream = opts.stream;
  in.reply_to = caf::actor_cast<outbound_sink>(self);
  return in;
}

/// Sends one message and prints what comes back until the final reply.
/// With `interruptible`, Ctrl+C sends /stop to the session: the session
/// then answers this sink with how many tasks it stopped, and nothing more
/// of the stopped turn. Returns true when the turn ended without an error.
bool one_turn(caf::actor_system& sys, const router_actor& router,
              const cli_options& opts, const std::string& text, bool styled,
              bool interruptible) {
  caf::scoped_actor self{sys};
  self->send(router, chat_message(opts, text, self));
  reply_view view{std::cout, styled, term::terminal_width(STDOUT_FILENO)};
  const char* dim = styled ? "\033[2m" : "";
  const char* reset = styled ? "\033[0m" : "";
  // Ctrl+C is looked at this often while waiting.
  constexpr auto poll = std::chrono::milliseconds(100);
  auto deadline = std::chrono::steady_clock::now()
                  + std::chrono::seconds(opts.reply_timeout_s);
  bool stop_sent = false;
  bool done = false;
  bool ok = true;
  while (!done) {
    self->receive(
      [&](outbound_msg& out) {
        switch (out.kind) {
          case outbound_kind::delta: view.delta(out.content); break;
          case outbound_kind::stream_end: view.stream_end(); break;
          case outbound_kind::progress:
            if (opts.show_tools) {
              view.stream_end();
              std::cerr << dim << "  ↳ " << out.content << reset << "\n";
            }
            break;
          case outbound_kind::retry_wait:
            std::cerr << dim << "  … " << out.content << reset << "\n";
            break;
          case outbound_kind::final_reply:
            view.final_text(out.content,
                            out.metadata_json.find("\"streamed\":true")
                              != std::string::npos);
            ok = !out.is_error;
            done = true;
            break;
        }
      },
      caf::after(poll) >>
        [&] {
          if (interruptible && take_interrupt() && !stop_sent) {
            stop_sent = true;
            view.stream_end();
            std::cerr << "\n" << dim << "  Stopping…" << reset << "\n";
            self->send(router, chat_message(opts, "/stop", self));
          }
          if (std::chrono::steady_clock::now() >= deadline) {
            std::cerr << "No answer within " << opts.reply_timeout_s << " s.\n";
            ok = false;
            done = true;
          }
        });
  }
  return ok;
}

bool is_exit(const std::string& line) {
  return line == "exit" || line == "quit" || line == "/exit" || line == "/quit"
         || line == ":q";
}

} // namespace

int run_cli_chat(caf::actor_system& sys, router_actor router,
                 const cli_options& opts) {
  // Rendering and styling (bold prompt, dim tool lines) only on a terminal,
  // and never with --no-markdown.
  bool styled = isatty(STDOUT_FILENO) != 0 && opts.markdown;
  if (opts.message)
    return one_turn(sys, router, opts, *opts.message, styled, false) ? 0 : 1;
  bool edit = isatty(STDIN_FILENO) != 0;
  if (edit)
    install_interrupt_flag();
  line_input input{edit, styled, edit ? opts.history_file : std::string{}};
  std::cerr << "nanobot — type a message, \"exit\" or Ctrl+D to leave "
               "(a line ending in \\ continues).\n";
  while (true) {
    auto got = input.read_message();
    if (auto err = input.take_history_error(); !err.empty())
      std::cerr << "nanobot: history not saved: " << err << "\n";
    if (got.what == line_input::outcome::end)
      break;
    if (got.what == line_input::outcome::interrupted) {
      std::cerr << "\n";
      // Ctrl+C at an empty prompt leaves; on a typed line, drops it.
      if (got.text.empty())
        break;
      continue;
    }
    if (got.text.find_first_not_of(" \t\n") == std::string::npos)
      continue;
    if (is_exit(got.text))
      break;
    if (styled)
      std::cout << "\n\033[36m🐈 nanobot\033[0m\n" << std::flush;
    else
      std::cout << "nanobot: " << std::flush;
    one_turn(sys, router, opts, got.text, styled, edit);
    if (styled)
      std::cout << "\n" << std::flush;
    // A Ctrl+C that came after the turn ended is not a request to leave.
    take_interrupt();
  }
  // The background work at exit is not interrupted by a stray Ctrl+C flag;
  // a Ctrl+C from now on ends the process as usual.
  if (edit)
    std::signal(SIGINT, SIG_DFL);
  std::cerr << "\n";
  return 0;
}

} // namespace nb
