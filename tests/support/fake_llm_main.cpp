// fake_llm_server: the scripted fake as a process, for benchmarks and
// child-process tests. Prints "PORT <n>" once it listens; stops on
// SIGINT/SIGTERM.
//   --port N            listen port (0 = any, the default)
//   --delay-ms D        wait D ms before every answer
//   --api-key KEY       refuse calls without this key (OpenAI's 401)
//   --tool-then-answer  first answer a tool call (--tool NAME, --tool-args
//                       JSON; default list_dir {"path":"."}), then, after
//                       the tool result, "done: <result>"
// Whatever the mode, a turn whose user message holds
// "call-tool:<name> <JSON arguments>" gets that tool call first and, after
// its result, "done: <result>" (a test that needs one tool called, e.g. one
// added while the gateway runs).
#include <atomic>
#include <memory>
#include <optional>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>

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

/// The last user message's text.
std::string last_user_text(const json& body) {
  std::string said;
  if (!body.is_object() || !body.contains("messages")
      || !body["messages"].is_array())
    return said;
  for (const auto& m : body["messages"]) {
    if (!m.is_object() || m.value("role", std::string{}) != "user"
        || !m.contains("content"))
      continue;
    said.clear();
    const auto& c = m["content"];
    if (c.is_string())
      said = c.get<std::string>();
    else if (c.is_array())
      for (const auto& part : c)
        if (part.is_object() && part.contains("text")
            && part["text"].is_string())
          said += part["text"].get<std::string>();
  }
  return said;
}

/// "call-tool:<name> <JSON>" in the last user message: the call it asks
/// for, else nullopt.
std::optional<std::pair<std::string, json>> asked_call(const json& body) {
  static constexpr std::string_view marker = "call-tool:";
  auto said = last_user_text(body);
  auto at = said.find(marker);
  if (at == std::string::npos)
    return std::nullopt;
  // One line: the gateway may add its runtime context below the text.
  auto rest = said.substr(at + marker.size());
  rest = rest.substr(0, rest.find('\n'));
  auto space = rest.find(' ');
  auto args = json::parse(space == std::string::npos ? std::string{"{}"}
                                                     : rest.substr(space + 1),
                          nullptr, false);
  if (args.is_discarded() || !args.is_object())
    args = json::object();
  return std::pair{rest.substr(0, space), args};
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
      auto asked = asked_call(body);
      if (asked && !tool_result_this_turn(body))
        r = tool_calls({call("call_" + std::to_string(++*calls), asked->first,
                             asked->second)});
      else if (asked)
        r = nb::test::text("done: "
                           + tool_result_this_turn(body)->substr(0, 200));
      else if (!o.tool_then_answer)
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
