// `nanobot cron list|add|remove`: the real executable against a config in a
// temporary home, sharing the jobs file with the store API.
#include <doctest/doctest.h>

#include "actors/cron/job_store.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/support/scratch_dir.hpp"

namespace {

using namespace nb;
using namespace nb::test;

struct cli_home {
  scratch_dir home;
  std::string config = home.at("config.json");
  std::string workspace = home.at("workspace");
  cli_home() {
    write_all(config, "{\"agents\": {\"defaults\": {\"workspace\": \""
                        + workspace + "\"}}}");
  }
  run_result cron(std::vector<std::string> args) {
    std::vector<std::string> argv{nanobot_binary(), "cron"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("-c");
    argv.push_back(config);
    return run(argv, home.path);
  }
};

} // namespace

TEST_CASE("nanobot cron adds lists and removes jobs") {
  cli_home h;
  auto r = h.cron({"list"});
  CHECK(r.code == 0);
  CHECK(r.out == "No scheduled jobs.\n");
  r = h.cron({"add", "-m", "stand up and stretch", "--every", "3600", "-s",
              "telegram:5", "--name", "stretch"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  CHECK(r.out.rfind("Created job 'stretch' (id: ", 0) == 0);
  auto id = r.out.substr(r.out.find("id: ") + 4, 8);
  auto jobs = cron::job_store{h.workspace + "/cron"}.read().jobs;
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].session_key == "telegram:5");
  CHECK(jobs[0].schedule.every_ms == 3'600'000);
  r = h.cron({"list"});
  CHECK(r.out.find("- stretch (id: " + id + ", every 1h)") != std::string::npos);
  r = h.cron({"remove", id});
  CHECK(r.code == 0);
  CHECK(r.out == "Removed job " + id + "\n");
  r = h.cron({"remove", id});
  CHECK(r.code == 1);
  CHECK(r.err == "Job " + id + " not found\n");
}

TEST_CASE("nanobot cron refuses bad input with the reason") {
  cli_home h;
  auto r = h.cron({"add", "-m", "x", "--every", "soon"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--every needs a whole number of seconds, got 'soon'")
        != std::string::npos);
  r = h.cron({"add", "-m", "x", "--cron", "0 9 * *"});
  CHECK(r.code == 1);
  CHECK(r.err.find("expected 5 fields") != std::string::npos);
  r = h.cron({"add", "-m", "x", "--every", "60", "-s", "nocolon"});
  CHECK(r.code == 2);
  CHECK(r.err.find("channel:chat_id") != std::string::npos);
  r = h.cron({"frobnicate"});
  CHECK(r.code == 2);
  CHECK(r.err.find("unknown action 'frobnicate'") != std::string::npos);
}
