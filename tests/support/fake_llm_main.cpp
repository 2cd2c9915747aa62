// fake_llm_server: the scripted fake as a process, for benchmarks and
// child-process tests. Prints "PORT <n>" once it listens; stops on
// SIGINT/SIGTERM.
//   --port N            listen port (0 = any, the default)
//   --delay-ms D        wait D ms before every answer
//   --api-key KEY       refuse calls without this key (OpenAI's 401)
//   --tool-then-answer  first answer a tool call (--tool NAME, --tool-args
//                       JSON; default list_dir {"path":"."}), then, after
//                       the tool result, "done: <result>"
#include <atomic>
#include <memory>
#include <optional>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "tests/support/fake_llm.hpp"
#include "tests/support/fake_llm_key.hpp"

namespace {

using json = nlohmann::json;
using namespace nb::test;

struct options {
  int port = 0;
  int delay_ms = 0;
  bool tool_then_answer = false;
  std::string tool = "list_dir";
  std::string tool_args = R"({"path":"."})";
  std::string api_key;
};

bool parse(int argc, char** argv, options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw std::invalid_argument("missing value after " + a);
      return argv[++i];
    };
    if (a == "--port")
      o.port = std::stoi(value());
    else if (a == "--delay-ms")
      o.delay_ms = std::stoi(value());
    else if (a == "--tool-then-answer")
      o.tool_then_answer = true;
    else if (a == "--tool")
      o.tool = value();
    else if (a == "--tool-args")
      o.tool_args = value();
    else if (a == "--api-key")
      o.api_key = value();
    else
      throw std::invalid_argument("unknown option " + a);
  }
  return true;
}

/// The content of the last tool result after the last user message, or
/// nullopt when the turn has called no tool yet. (The last message alone
/// does not tell: a later turn's request may end otherwise.)
std::optional<std::string> tool_result_this_turn(const json& body) {
  if (!body.is_object() || !body.contains("messages")
      || !body["messages"].is_array())
    return std::nullopt;
  std::optional<std::string> out;
  for (const auto& m : body["messages"]) {
    auto role = m.value("role", std::string{});
    if (role == "user")
      out.reset();
    else if (role == "tool")
      out = m.contains("content") && m["content"].is_string()
              ? m["content"].get<std::string>() : std::string{};
  }
  return out;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  try {
    parse(argc, argv, o);
  } catch (const std::exception& e) {
    std::cerr << "fake_llm_server: " << e.what() << "\n";
    return 2;
  }
  // Signals go to sigwait below, not to the server's threads.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  try {
    fake_llm llm{o.port, 256};
    require_key(llm, o.api_key);
    auto delay = std::chrono::milliseconds{o.delay_ms};
    auto calls = std::make_shared<std::atomic<int>>(0);
    llm.set_responder([o, delay, calls](const json& body) {
      fake_response r;
      if (!o.tool_then_answer)
        r = fake_llm::echo(body);
      else if (auto result = tool_result_this_turn(body))
        r = nb::test::text("done: " + result->substr(0, 200));
      else
        // Ids differ from call to call: a history with two "call_1"s
        // would have its later pair dropped as a duplicate.
        r = tool_calls({call("call_" + std::to_string(++*calls), o.tool,
                             json::parse(o.tool_args))});
      r.delay = delay;
      return r;
    });
    std::cout << "PORT " << llm.port() << std::endl;
    int sig = 0;
    sigwait(&signals, &sig);
  } catch (const std::exception& e) {
    std::cerr << "fake_llm_server: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
