// fake_telegram_server: the scripted Telegram Bot API (fake_telegram) as a
// process, for tests that drive a whole gateway from outside (the WebUI's
// "add channel"). Prints "URL <apiBase>" once it listens, then reads
// commands from stdin, one a line, and answers each on stdout:
//   push <chat> <from> <text...>  a private text message -> "PUSHED <id>"
//   wait_sent <n> <seconds>       until n messages were sent ->
//                                 "SENT <n> <the last one's text as JSON>"
//                                 or "TIMEOUT <sent so far>"
//   calls <method>                -> "CALLS <n>"
// Ends at the end of stdin.
//   --token T   the bot token the server accepts (default 123:ABC)
#include <chrono>
#include <iostream>
#include <sstream>
#include <string>

#include "tests/platforms/fake_telegram.hpp"

int main(int argc, char** argv) {
  std::string token = "123:ABC";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--token" && i + 1 < argc) {
      token = argv[++i];
    } else {
      std::cerr << "usage: fake_telegram_server [--token T]\n";
      return 2;
    }
  }
  nb::test::fake_telegram tg{token};
  std::cout << "URL " << tg.base_url() << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in{line};
    std::string cmd;
    in >> cmd;
    if (cmd == "push") {
      int64_t chat = 0, from = 0;
      in >> chat >> from;
      std::string text;
      std::getline(in >> std::ws, text);
      std::cout << "PUSHED " << tg.push_text(chat, from, text) << std::endl;
    } else if (cmd == "wait_sent") {
      size_t n = 0;
      int seconds = 0;
      in >> n >> seconds;
      if (tg.wait_sent(n, std::chrono::seconds(seconds))) {
        auto all = tg.sent();
        std::cout << "SENT " << all.size() << " "
                  << all.back().value("text", nlohmann::json("")).dump()
                  << std::endl;
      } else {
        std::cout << "TIMEOUT " << tg.sent().size() << std::endl;
      }
    } else if (cmd == "calls") {
      std::string method;
      in >> method;
      std::cout << "CALLS " << tg.calls(method) << std::endl;
    } else if (!cmd.empty()) {
      std::cout << "ERROR unknown command " << cmd << std::endl;
    }
  }
  return 0;
}
