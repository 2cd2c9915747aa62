// The original's protected system jobs with several agents, in a real
// gateway: each agent's own cron store (<its workspace>/cron/jobs.json)
// holds its Dream job, and its heartbeat job only where that agent's
// heartbeat is on; a due Dream consolidates that agent's memory with that
// agent's model, never another agent's memory and never as a chat turn.
#include <doctest/doctest.h>

#include <chrono>
#include <set>
#include <thread>

#include "actors/cron/job_store.hpp"
#include "actors/memory/dream.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/supervisor/runtime.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

namespace {

std::set<std::string> job_ids(cron::job_store& store) {
  std::set<std::string> out;
  for (const auto& j : store.read().jobs)
    out.insert(j.id);
  return out;
}

int64_t wall_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
    .count();
}

} // namespace

TEST_CASE("each agent's cron store holds its own system jobs and a due dream "
          "writes that agent's memory") {
  temp_home home;
  fake_llm llm;
  auto cfg = settings_for(home, llm); // main: its heartbeat off
  cfg.gateway.heartbeat.enabled = false;
  agent_profile work;
  work.id = "work";
  work.agent = cfg.agent;
  work.agent.workspace = (home.dir / "work").string();
  work.agent.model = "work-model";
  work.heartbeat_set = true; // work's heartbeat on
  work.heartbeat.enabled = true;
  work.heartbeat.interval_s = 3600;
  cfg.agents.push_back(work);
  auto main_ws = cfg.workspace_path();
  auto work_ws = cfg.for_agent("work").workspace_path();
  std::string err;
  REQUIRE(append_history(work_ws, "Bob's standup is at 09:30 on weekdays.",
                         "telegram:100", err));
  REQUIRE(append_history(main_ws, "Alice drinks green tea.", "telegram:1",
                         err));

  runtime rt{cfg, /*background=*/true};
  cron::job_store work_store{work_ws + "/cron"};
  cron::job_store main_store{main_ws + "/cron"};
  for (int i = 0; i < 200 && (job_ids(work_store).size() < 2
                              || job_ids(main_store).empty());
       ++i)
    std::this_thread::sleep_for(50ms);
  CHECK(job_ids(work_store) == std::set<std::string>{"dream", "heartbeat"});
  CHECK(job_ids(main_store) == std::set<std::string>{"dream"});

  // Two hours pass for work's Dream: its scheduler sees the store change
  // and runs the job through its usual due-job path.
  llm.push(text("- Bob's standup is at 09:30 on weekdays"));
  REQUIRE(work_store
            .update([&](cron::job_list& list) {
              for (auto& j : list.jobs)
                if (j.id == "dream")
                  j.next_run_at_ms = wall_ms() - 1000;
              return true;
            })
            .empty());
  for (int i = 0; i < 200 && read_dream_cursor(work_ws) == 0; ++i)
    std::this_thread::sleep_for(50ms);
  CHECK(read_dream_cursor(work_ws) == 1);
  CHECK(read_all(work_ws + "/memory/MEMORY.md").find("standup is at 09:30")
        != std::string::npos);
  // Main's memory is untouched; the one model call was work's Dream.
  CHECK(read_all(main_ws + "/memory/MEMORY.md").find("standup")
        == std::string::npos);
  CHECK(read_dream_cursor(main_ws) == 0);
  REQUIRE(llm.request_count() == 1);
  auto call = llm.requests()[0];
  CHECK(call.body["model"] == "work-model");
  auto prompt = call.body["messages"].dump();
  CHECK(prompt.find("standup is at 09:30") != std::string::npos);
  CHECK(prompt.find("green tea") == std::string::npos);
  for (const auto& j : work_store.read().jobs)
    if (j.id == "dream") {
      CHECK(j.last_status == "ok");
      CHECK(j.next_run_at_ms > wall_ms() + 3600 * 1000);
    }
  // No chat turn came of it (a turn would have asked the model again): the
  // shutdown drains whatever was started, so the count after it is final.
  rt.shutdown(5s);
  CHECK(llm.request_count() == 1);
  CHECK(session_messages(cfg, "work::").empty());
  CHECK(session_messages(cfg, ":").empty());
}
