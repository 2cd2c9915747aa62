// The Responses conversation state on a real file system: what a turn of a
// stateful session costs the store (issue 19) — reading the state at BUILD
// (the first two lines only) against a whole load, and writing it with the
// turn (a rewrite, as the original's save). Prints figures; asserts nothing.
//   build/tests/bench/responses_state_bench [dir]   (default: under /tmp)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"

using namespace nb;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

/// A state of `turns` answers, each with an encrypted reasoning item of
/// `blob` bytes, as a reasoning model leaves it.
std::shared_ptr<const std::string> bench_state(int turns, size_t blob) {
  json items = json::array();
  for (int i = 0; i < turns; ++i) {
    items.push_back({{"role", "user"},
                     {"content", json::array({{{"type", "input_text"},
                                               {"text", "question " + std::to_string(i)}}})}});
    items.push_back({{"type", "reasoning"}, {"id", "rs_" + std::to_string(i)},
                     {"summary", json::array()},
                     {"encrypted_content", std::string(blob, 'A')}});
    items.push_back({{"type", "message"}, {"role", "assistant"},
                     {"id", "msg_" + std::to_string(i)}, {"status", "completed"},
                     {"content", json::array({{{"type", "output_text"},
                                               {"text", "answer " + std::to_string(i)}}})}});
  }
  json state{{"kind", "openai_responses"},
             {"provider", "openai_compat:openai:https://api.openai.com/v1"},
             {"model", "gpt-5"}, {"version", 1},
             {"payload", {{"items", items}}}, {"pending_messages", json::array()}};
  return std::make_shared<const std::string>(state.dump());
}

template <class F>
double bench_ms(int runs, F f) {
  auto start = clock_type::now();
  for (int i = 0; i < runs; ++i)
    f();
  return std::chrono::duration<double, std::milli>(clock_type::now() - start)
           .count()
         / runs;
}

} // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1]
                             : std::filesystem::temp_directory_path().string()
                                 + "/nb_state_bench";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::printf("%8s %8s %10s %12s %12s %12s\n", "turns", "messages", "state KiB",
              "state read", "whole load", "turn write");
  for (int turns : {10, 100, 400}) {
    auto key = "bench:" + std::to_string(turns);
    std::vector<std::string> history;
    for (int i = 0; i < turns; ++i) {
      history.push_back(json{{"role", "user"}, {"content", "question " + std::to_string(i)}}.dump());
      history.push_back(json{{"role", "assistant"},
                             {"content", std::string(400, 'x')}}.dump());
    }
    conversation_state state{bench_state(turns, 2048), {}};
    append_session(dir, key, history, &state);
    auto read_ms = bench_ms(20, [&] { (void) load_session(dir, key, true); });
    auto load_ms = bench_ms(20, [&] { (void) load_session(dir, key); });
    std::vector<std::string> turn = {history[0], history[1]};
    auto write_ms = bench_ms(5, [&] { append_session(dir, key, turn, &state); });
    std::printf("%8d %8zu %10zu %9.2f ms %9.2f ms %9.2f ms\n", turns,
                history.size(), state.record->size() / 1024, read_ms, load_ms,
                write_ms);
  }
  std::filesystem::remove_all(dir);
  return 0;
}
