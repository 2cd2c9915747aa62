#include "actors/cli/cli_chat.hpp"

#include <cstdio>
#include <iostream>

#include <unistd.h>

#include <caf/scoped_actor.hpp>

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

/// Sends one message and prints what comes back until the final reply.
/// Returns true when the turn ended without an error.
bool one_turn(caf::actor_system& sys, const router_actor& router,
              const cli_options& opts, const std::string& text, bool tty) {
  caf::scoped_actor self{sys};
  auto r = route_for(opts.session);
  inbound_msg in;
  in.channel = "cli";
  in.sender_id = "user";
  in.chat_id = r.chat_id;
  in.session_key_override = r.key_override;
  in.content = text;
  in.wants_stream = opts.stream;
  in.reply_to = caf::actor_cast<outbound_sink>(self);
  self->send(router, std::move(in));
  bool streamed_any = false;
  bool done = false;
  bool ok = true;
  const char* dim = tty ? "\033[2m" : "";
  const char* reset = tty ? "\033[0m" : "";
  while (!done) {
    self->receive(
      [&](outbound_msg& out) {
        switch (out.kind) {
          case outbound_kind::delta:
            std::cout << out.content << std::flush;
            streamed_any = true;
            break;
          case outbound_kind::stream_end:
            if (streamed_any)
              std::cout << "\n";
            streamed_any = false;
            break;
          case outbound_kind::progress:
            if (opts.show_tools)
              std::cerr << dim << "  ↳ " << out.content << reset << "\n";
            break;
          case outbound_kind::retry_wait:
            std::cerr << dim << "  … " << out.content << reset << "\n";
            break;
          case outbound_kind::final_reply:
            // A streamed answer is already on screen.
            if (out.metadata_json.find("\"streamed\":true") == std::string::npos)
              std::cout << out.content << "\n";
            else if (streamed_any)
              std::cout << "\n";
            ok = !out.is_error;
            done = true;
            break;
        }
      },
      caf::after(std::chrono::seconds(opts.reply_timeout_s)) >> [&] {
        std::cerr << "No answer within " << opts.reply_timeout_s << " s.\n";
        ok = false;
        done = true;
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
  // Styling (bold prompts, dim tool lines) only on a terminal, and never
  // with --no-markdown.
  bool tty = isatty(STDOUT_FILENO) != 0 && opts.markdown;
  if (opts.message)
    return one_turn(sys, router, opts, *opts.message, tty) ? 0 : 1;
  std::cerr << "nanobot — type a message, \"exit\" or Ctrl+D to leave.\n";
  std::string line;
  while (true) {
    std::cerr << (tty ? "\033[1mYou:\033[0m " : "You: ") << std::flush;
    if (!std::getline(std::cin, line))
      break;
    if (line.find_first_not_of(" \t") == std::string::npos)
      continue;
    if (is_exit(line))
      break;
    std::cout << (tty ? "\033[1mnanobot:\033[0m " : "nanobot: ") << std::flush;
    one_turn(sys, router, opts, line, tty);
  }
  std::cerr << "\n";
  return 0;
}

} // namespace nb
