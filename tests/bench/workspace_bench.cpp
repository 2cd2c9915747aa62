// Workspace benchmark: prompt assembly for 1 000 live sessions of one agent
// after a MEMORY.md change. Before the workspace actor, each session kept
// its own cache and rebuilt it from the files (nine stats and a reread of
// everything, history.jsonl included, per session); now one actor per
// agent reads the files once and serves every session from memory. Prints
// the workspace files read and the BUILD time (p50, p99); run on demand:
// tests/bench/run.sh.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/session/prompt.hpp"
#include "actors/workspace/workspace.hpp"
#include "messages/type_ids.hpp"

using namespace std::chrono;

namespace {

constexpr int sessions = 1000;

struct percentiles {
  double p50 = 0, p99 = 0, total_ms = 0;
};

percentiles of(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (auto x : us)
    sum += x;
  return {us[us.size() / 2], us[us.size() * 99 / 100], sum / 1000};
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream{path} << text;
}

std::string workspace() {
  char tmpl[] = "/tmp/nb-wsbench-XXXXXX";
  std::string ws = ::mkdtemp(tmpl);
  write(ws + "/AGENTS.md", std::string(3000, 'a'));
  write(ws + "/USER.md", std::string(4000, 'u'));
  write(ws + "/memory/MEMORY.md", std::string(8000, 'm'));
  std::string history;
  for (int i = 0; i < 2000; ++i)
    history += R"({"cursor":)" + std::to_string(i + 1)
               + R"(,"timestamp":"2026-01-01 10:00","content":")"
               + std::string(300, 'h') + R"(","session_key":"telegram:)"
               + std::to_string(i % sessions) + "\"}\n";
  write(ws + "/memory/history.jsonl", history);
  for (int i = 0; i < 10; ++i)
    write(ws + "/skills/s" + std::to_string(i) + "/SKILL.md",
          "---\nname: s" + std::to_string(i) + "\ndescription: d\n---\nbody\n");
  return ws;
}

std::string key(int i) {
  return "telegram:" + std::to_string(i);
}

/// Before: a cache per session; after the change each one rebuilds.
void per_session(const std::string& ws) {
  std::vector<nb::system_prompt_cache> caches(sessions);
  auto input = [&](int i) {
    return nb::prompt_inputs{ws, "telegram", key(i), "", "", "/usr/bin:/bin"};
  };
  for (int i = 0; i < sessions; ++i)
    caches[i].get(input(i));
  write(ws + "/memory/MEMORY.md", std::string(8001, 'M'));
  auto per_build = nb::read_workspace_parts(ws, "/usr/bin:/bin").files_read;
  std::vector<double> us;
  for (int i = 0; i < sessions; ++i) {
    auto t0 = steady_clock::now();
    caches[i].get(input(i));
    us.push_back(duration<double, std::micro>(steady_clock::now() - t0).count());
  }
  auto p = of(us);
  std::printf("  per-session caches (before): %d rebuilds, %lld file reads; "
              "BUILD p50 %.0f us, p99 %.0f us, all %d sessions %.1f ms\n",
              sessions, static_cast<long long>(per_build) * sessions, p.p50,
              p.p99, sessions, p.total_ms);
}

/// After: one workspace actor serves every session.
void one_actor(caf::actor_system& sys, const std::string& ws) {
  auto files = nb::spawn_workspace(sys, {"main", ws}, {});
  caf::scoped_actor self{sys};
  auto ask = [&](int i) {
    self->request(files, seconds(30), nb::prompt_request{key(i), "telegram",
                                                         "", ""})
      .receive([](nb::prompt_reply&) {}, [](caf::error&) {});
  };
  for (int i = 0; i < sessions; ++i)
    ask(i);
  auto figures = [&] {
    nb::workspace_figures f;
    self->request(files, seconds(30), nb::workspace_figures_atom::value)
      .receive([&](nb::workspace_figures& x) { f = x; }, [](caf::error&) {});
    return f;
  };
  auto before = figures();
  write(ws + "/memory/MEMORY.md", std::string(8002, 'N'));
  std::vector<double> us;
  for (int i = 0; i < sessions; ++i) {
    auto t0 = steady_clock::now();
    ask(i);
    us.push_back(duration<double, std::micro>(steady_clock::now() - t0).count());
  }
  auto after = figures();
  auto p = of(us);
  std::printf("  workspace actor (after):     %lld rebuild(s), %lld file reads; "
              "BUILD p50 %.0f us, p99 %.0f us, all %d sessions %.1f ms\n",
              static_cast<long long>(after.rebuilds - before.rebuilds),
              static_cast<long long>(after.file_reads - before.file_reads),
              p.p50, p.p99, sessions, p.total_ms);
  // The same 1 000 requests at once (sessions run in parallel).
  write(ws + "/memory/MEMORY.md", std::string(8003, 'O'));
  auto t0 = steady_clock::now();
  for (int i = 0; i < sessions; ++i)
    self->send(files, nb::prompt_request{key(i), "telegram", "", ""});
  for (int i = 0; i < sessions; ++i)
    self->receive([](nb::prompt_reply&) {});
  auto burst = duration<double, std::milli>(steady_clock::now() - t0).count();
  auto last = figures();
  std::printf("  workspace actor, %d requests at once: %.1f ms, %lld "
              "rebuild(s)\n",
              sessions, burst,
              static_cast<long long>(last.rebuilds - after.rebuilds));
  caf::anon_send_exit(files, caf::exit_reason::user_shutdown);
}

} // namespace

int main() {
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3)
    std::printf("load average %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  std::printf("prompt assembly, %d live sessions of one agent, after a "
              "MEMORY.md change (AGENTS.md 3 KB, USER.md 4 KB, MEMORY.md "
              "8 KB, 10 skills, history.jsonl 2 000 entries)\n",
              sessions);
  auto ws = workspace();
  per_session(ws);
  caf::actor_system_config cfg;
  nb::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    one_actor(sys, ws);
  }
  std::error_code ec;
  std::filesystem::remove_all(ws, ec);
  return 0;
}
