// Context benchmark: the governor on a 10 000-message transcript (when it
// all fits, and when history must be snipped), against the plain copy and
// serialisation it replaces, and the system prompt's assembly. Prints the
// figures (best and median of many runs) and the load average; run on
// demand: tests/bench/run.sh.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/runner/context_governor.hpp"
#include "actors/session/prompt.hpp"

using namespace std::chrono;
using nlohmann::json;

namespace {

struct timing {
  double best_us = 0;
  double median_us = 0;
  double cpu_best_us = 0; ///< this thread's CPU time: robust under load
};

double cpu_us() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

template <class F>
timing measure(int reps, F work) {
  work(); // warm-up
  std::vector<double> us, cpu;
  for (int i = 0; i < reps; ++i) {
    auto c0 = cpu_us();
    auto t0 = steady_clock::now();
    work();
    us.push_back(duration<double, std::micro>(steady_clock::now() - t0).count());
    cpu.push_back(cpu_us() - c0);
  }
  std::sort(us.begin(), us.end());
  return {us.front(), us[us.size() / 2], *std::min_element(cpu.begin(), cpu.end())};
}

void print(const std::string& what, timing t) {
  std::printf("  %-50s wall best %7.0f us, median %7.0f us; cpu best %7.0f us\n",
              what.c_str(), t.best_us, t.median_us, t.cpu_best_us);
}

/// 10 000 messages: user question, a tool call, its 400-char result, an
/// answer; about 2.3 MB of JSON.
json transcript() {
  json in = json::array({{{"role", "system"}, {"content", std::string(2000, 's')}}});
  for (int i = 0; in.size() < 10000; ++i) {
    auto id = "call_" + std::to_string(i);
    in.push_back({{"role", "user"},
                  {"content", "question " + std::to_string(i) + std::string(100, 'q')}});
    in.push_back({{"role", "assistant"}, {"content", nullptr},
                  {"tool_calls", json::array({{{"id", id}, {"type", "function"},
                    {"function", {{"name", "exec"}, {"arguments", "{}"}}}}})}});
    in.push_back({{"role", "tool"}, {"tool_call_id", id}, {"name", "exec"},
                  {"content", std::string(400, 'r')}});
    in.push_back({{"role", "assistant"}, {"content", "answer " + std::string(150, 'a')}});
  }
  return in;
}

void governor_figures(int reps) {
  auto in = transcript();
  std::vector<nb::shared_model_message> made;
  for (auto& m : in)
    made.push_back(nb::make_model_message(m));
  auto body = in.dump();
  std::printf("governor, %zu messages (%zu bytes of JSON)\n", in.size(),
              body.size());
  print("reference: deep copy of the transcript",
        measure(reps, [&] { json copy = in; }));
  print("reference: serialising the transcript",
        measure(reps, [&] { auto s = in.dump(); }));
  const nb::governor_limits fits{100000000, 8192, 16000};
  const nb::governor_limits tight{200000, 8192, 16000};
  for (auto* lim : {&fits, &tight}) {
    std::string what = lim == &fits ? "fits" : "snipped";
    auto text = nb::govern_messages_text(made, *lim);
    std::printf("  %s: %zu bytes sent\n", what.c_str(), text.size());
    print("request text, made messages' texts (" + what + ")",
          measure(reps, [&] { nb::govern_messages_text(made, *lim); }));
    print("request text, serialised (" + what + ")",
          measure(reps, [&] { nb::govern_messages_text(in, *lim); }));
    print("JSON copy (" + what + ")",
          measure(reps, [&] { nb::govern_messages(in, *lim); }));
  }
}

void prompt_figures(int reps) {
  char tmpl[] = "/tmp/nb-bench-XXXXXX";
  std::string ws = ::mkdtemp(tmpl);
  auto write = [&](const std::string& rel, const std::string& text) {
    std::filesystem::create_directories(
      std::filesystem::path(ws + "/" + rel).parent_path());
    std::ofstream{ws + "/" + rel} << text;
  };
  write("USER.md", std::string(4000, 'u'));
  write("memory/MEMORY.md", std::string(8000, 'm'));
  for (int i = 0; i < 10; ++i)
    write("skills/s" + std::to_string(i) + "/SKILL.md",
          "---\nname: s" + std::to_string(i) + "\ndescription: d\n---\nbody\n");
  nb::prompt_inputs in{ws, "telegram", "telegram:1", "", "", "/usr/bin:/bin"};
  std::printf("system prompt (USER.md 4 KB, MEMORY.md 8 KB, 10 skills): %zu "
              "chars\n", nb::build_system_prompt(in).size());
  print("build", measure(reps, [&] { nb::build_system_prompt(in); }));
  nb::system_prompt_cache cache;
  print("cached get (stats every input file)",
        measure(reps, [&] { cache.get(in); }));
  std::error_code ec;
  std::filesystem::remove_all(ws, ec);
}

} // namespace

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3)
    std::printf("load average %.2f %.2f %.2f, %d runs per figure\n", load[0],
                load[1], load[2], reps);
  governor_figures(reps);
  prompt_figures(reps);
  return 0;
}
