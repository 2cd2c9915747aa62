// `nanobot trigger JOB`: a cron job run now through the gateway's scheduler
// (queued in cron/action.jsonl, the scheduler's way in from other
// processes), by name or id, with or without a gateway running.
#include <doctest/doctest.h>

#include <thread>

#include "tests/cli/cli_home.hpp"
#include "tests/support/fake_llm.hpp"

using namespace nb::test;

namespace {

size_t requests_mentioning(const fake_llm& llm, const std::string& text) {
  size_t n = 0;
  for (auto& r : llm.requests())
    n += r.raw_body.find(text) != std::string::npos ? 1 : 0;
  return n;
}

} // namespace

TEST_CASE("trigger runs a cron job now by name or id") {
  fake_llm llm;
  cli_home h{{{"providers", {{"custom", {{"apiBase", llm.base_url()}}}}}}};
  gateway_reaper reaper{h};
  auto r = h.nanobot({"cron", "add", "-m", "water the plants", "--every",
                      "3600", "-s", "cli:direct", "--name", "water"});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto id = r.out.substr(r.out.find("id: ") + 4, 8);

  r = h.nanobot({"trigger", "watr"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "no cron job has the id or name 'watr'; did you mean "
                   "'water'?"));
  r = h.nanobot({"trigger"});
  CHECK(r.code == 2);

  // No gateway: queued for the next one, which runs it when it starts.
  r = h.nanobot({"trigger", "water"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "Queued job 'water' (" + id + ") to run now."));
  CHECK(has(r.out, "No gateway is running"));
  auto queue = read_all(h.workspace + "/cron/action.jsonl");
  CHECK(has(queue, "\"action\":\"update\""));
  CHECK(has(queue, "\"id\":\"" + id + "\""));
  CHECK(requests_mentioning(llm, "water the plants") == 0);

  r = h.nanobot({"gateway", "--background"});
  REQUIRE_MESSAGE(r.code == 0, (r.out + r.err));
  for (int i = 0; i < 300 && requests_mentioning(llm, "water the plants") < 1;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto first = requests_mentioning(llm, "water the plants");
  CHECK(first >= 1);

  // With the gateway up: by id, and the command reports the run.
  r = h.nanobot({"trigger", id});
  CHECK_MESSAGE(r.code == 0, (r.out + r.err));
  CHECK(has(r.out, "Job 'water' started at "));
  for (int i = 0;
       i < 300 && requests_mentioning(llm, "water the plants") <= first; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(requests_mentioning(llm, "water the plants") > first);
  r = h.nanobot({"gateway", "stop"});
  CHECK(r.code == 0);
}
