// Two gateways started on the same session store, as by mistake: only the
// holder of the schedules lease runs cron; the other waits on standby (log,
// /stats) and takes over once the owner is killed and its lease lapses.
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "config/load.hpp"
#include "tests/cluster/cluster_fixture.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;

namespace {

struct gateway_proc {
  int api_port = free_port();
  int health_port = free_port();
  std::unique_ptr<child_process> proc;

  void start(const std::string& config, const std::string& dir) {
    std::filesystem::create_directories(dir);
    proc = std::make_unique<child_process>(
      std::vector<std::string>{nanobot_binary(), "gateway", "-c", config},
      dir,
      std::vector<std::string>{
        "NANOBOT_API__PORT=" + std::to_string(api_port),
        "NANOBOT_GATEWAY__PORT=" + std::to_string(health_port)});
    if (!proc->wait_for_log("gateway ready", std::chrono::seconds(20)))
      throw std::runtime_error("gateway did not start: " + proc->err());
  }

  /// gauges.schedules_owner from /stats (-1 when absent or unreachable).
  int64_t schedules_owner() const {
    httplib::Client cli{"127.0.0.1", health_port};
    cli.set_read_timeout(10, 0);
    auto res = cli.Get("/stats");
    if (!res || res->status != 200)
      return -1;
    auto doc = json::parse(res->body, nullptr, false);
    if (!doc.is_object() || !doc["gauges"].contains("schedules_owner"))
      return -1;
    return doc["gauges"]["schedules_owner"].get<int64_t>();
  }

  /// Polls /stats until the gauge reads `want` (it is reported per renewal).
  bool wait_owner(int64_t want, std::chrono::seconds timeout) const {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      if (schedules_owner() == want)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
};

} // namespace

TEST_CASE("a second gateway on the same store runs no schedules until the owner's lease lapses") {
  fake_llm llm;
  temp_home home;
  auto ws = (home.dir / "ws").string();
  std::filesystem::create_directories(ws);
  auto config = (home.dir / "config.json").string();
  json cfg{{"agents", {{"defaults", {{"workspace", ws},
                                     {"model", "test-model"}}}}},
           {"providers", {{"custom", {{"apiBase", llm.base_url()}}}}},
           {"gateway", {{"schedulerThreads", 2}}},
           {"cluster", {{"schedulesLeaseMs", 2000}}}};
  std::ofstream{config} << cfg.dump(2);

  gateway_proc a, b;
  a.start(config, (home.dir / "a").string());
  REQUIRE(a.proc->wait_for_log("owns the schedules lease",
                               std::chrono::seconds(10)));
  b.start(config, (home.dir / "b").string());
  REQUIRE(b.proc->wait_for_log("schedules lease is held by",
                               std::chrono::seconds(10)));
  CHECK(b.proc->err().find("cron and the heartbeat stay off")
        != std::string::npos);
  CHECK(a.wait_owner(1, std::chrono::seconds(10)));
  CHECK(b.wait_owner(0, std::chrono::seconds(10)));

  // A job every second in one chat; both gateways see the same jobs.json.
  auto added = run({nanobot_binary(), "cron", "add", "-m", "water the plants",
                    "--every", "1", "-s", "api:plants", "-c", config},
                   home.dir.string());
  REQUIRE_MESSAGE(added.code == 0, added.err);
  CHECK(wait_for_count(*a.proc, "running job", 3, std::chrono::seconds(30)));
  // The standby gateway fired nothing while the owner was alive.
  CHECK(count_of(b.proc->err(), "running job") == 0);

  a.proc->signal(SIGKILL);
  a.proc->wait(std::chrono::seconds(10));
  auto fired_by_a = count_of(a.proc->err(), "running job");
  // The lease lapses 2 s after A's last renewal; B renews every ~0.7 s.
  REQUIRE(b.proc->wait_for_log("owns the schedules lease",
                               std::chrono::seconds(20)));
  CHECK(b.wait_owner(1, std::chrono::seconds(10)));
  CHECK(wait_for_count(*b.proc, "running job", 2, std::chrono::seconds(30)));

  // A fire is logged once the inbox journal holds it. One that A journaled
  // but had not yet stored when it was killed waits in A's journal for the
  // next gateway on this home: C, started once the job is removed and B
  // has stored its own fires and stopped, so that C only delivers.
  auto user_turns = [&] {
    auto s = std::get<loaded_settings>(load_settings(config)).value;
    size_t n = 0;
    for (auto& m : session_messages(s, "api:plants"))
      if (m.value("role", "") == "user" && m["content"].is_string()
          && m["content"].get<std::string>().find("water the plants")
               != std::string::npos)
        ++n;
    return n;
  };
  // The store also holds the protected system jobs (dream, heartbeat)
  // registered at start; the one user job is the one to remove.
  auto jobs = json::parse(std::ifstream{ws + "/cron/jobs.json"});
  std::vector<std::string> user_jobs;
  for (auto& j : jobs["jobs"])
    if (j["payload"].value("kind", "") != "system_event")
      user_jobs.push_back(j["id"].get<std::string>());
  REQUIRE(user_jobs.size() == 1);
  auto removed = run({nanobot_binary(), "cron", "remove", user_jobs[0], "-c",
                      config},
                     home.dir.string());
  REQUIRE_MESSAGE(removed.code == 0, removed.err);
  // B notices the removal within its 2 s poll; its last turns finish.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto fired = fired_by_a + count_of(b.proc->err(), "running job");
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (user_turns() + 1 < fired && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  b.proc->signal(SIGTERM);
  CHECK(b.proc->wait(std::chrono::seconds(20)) == 0);
  CHECK(count_of(b.proc->err(), "running job") + fired_by_a == fired);

  gateway_proc c;
  c.start(config, (home.dir / "c").string());
  until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (user_turns() < fired && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  c.proc->signal(SIGTERM);
  CHECK(c.proc->wait(std::chrono::seconds(20)) == 0);
  CHECK(count_of(c.proc->err(), "running job") == 0);
  // Every fire is one turn in the chat: nothing ran twice or got lost.
  CHECK(user_turns() == fired);
}

TEST_CASE("an orderly stop hands the schedules lease on at once") {
  fake_llm llm;
  temp_home home;
  auto ws = (home.dir / "ws").string();
  std::filesystem::create_directories(ws);
  auto config = (home.dir / "config.json").string();
  // A long lease: only the release on shutdown can explain a quick takeover.
  json cfg{{"agents", {{"defaults", {{"workspace", ws},
                                     {"model", "test-model"}}}}},
           {"providers", {{"custom", {{"apiBase", llm.base_url()}}}}},
           {"gateway", {{"schedulerThreads", 2}}},
           {"cluster", {{"schedulesLeaseMs", 600000}}}};
  std::ofstream{config} << cfg.dump(2);
  gateway_proc a, b;
  a.start(config, (home.dir / "a").string());
  REQUIRE(a.proc->wait_for_log("owns the schedules lease",
                               std::chrono::seconds(10)));
  b.start(config, (home.dir / "b").string());
  REQUIRE(b.proc->wait_for_log("schedules lease is held by",
                               std::chrono::seconds(10)));
  CHECK(b.wait_owner(0, std::chrono::seconds(10)));
  a.proc->signal(SIGTERM);
  CHECK(a.proc->wait(std::chrono::seconds(20)) == 0);
  // Without the release B would wait ten minutes; on standby it looks
  // every 2 s.
  CHECK(b.proc->wait_for_log("owns the schedules lease",
                             std::chrono::seconds(15)));
  CHECK(b.wait_owner(1, std::chrono::seconds(10)));
}
