// The original's cron/action.jsonl and cron.lock, on a copy of the fixture
// home's cron folder: queued adds and deletes are merged into jobs.json
// (a delete of a protected job refused and kept aside), the queue is
// emptied, and every store access waits while the original holds the lock.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "actors/common/file_lock.hpp"
#include "actors/cron/cron_ops.hpp"
#include "actors/cron/job_store.hpp"
#include "nb_test_paths.hpp" // NB_SOURCE_DIR, NB_BINARY_DIR
#include "tests/support/scratch_dir.hpp"

namespace {

using namespace nb;
using namespace std::chrono_literals;
using json = nlohmann::json;
namespace fs = std::filesystem;

/// The fixture workspace's cron folder, copied unchanged.
std::string copy_fixture_cron(const test::scratch_dir& ws) {
  auto from = std::string{NB_SOURCE_DIR}
              + "/tests/fixtures/nanobot-home/.nanobot/workspace/cron";
  fs::copy(from, ws.at("cron"), fs::copy_options::recursive);
  return ws.at("cron");
}

const cron::job* find(const std::vector<cron::job>& jobs,
                      const std::string& id) {
  for (auto& j : jobs)
    if (j.id == id)
      return &j;
  return nullptr;
}

} // namespace

TEST_CASE("action.jsonl from the original is merged and emptied") {
  test::scratch_dir ws;
  auto dir = copy_fixture_cron(ws);
  cron::job_store store{dir};
  CHECK(store.lock_file() == ws.path + "/cron.lock");
  auto list = store.read();
  // The add (snake_case params) arrived with its binding.
  auto* added = find(list.jobs, "a7e19b04");
  REQUIRE(added);
  CHECK(added->name == "Stretch break");
  CHECK(added->schedule.kind == "every");
  CHECK(added->schedule.every_ms == 3600000);
  CHECK(added->session_key == "cli:direct");
  CHECK(added->origin_channel == "cli");
  // The user job was deleted; the protected one was not.
  CHECK_FALSE(find(list.jobs, "3fa1c2d9"));
  REQUIRE(find(list.jobs, "dream"));
  CHECK(find(list.jobs, "dream")->payload_kind == "system_event");
  REQUIRE(find(list.jobs, "heartbeat"));
  // The refused line is reported and kept; the queue is empty.
  bool reported = false;
  for (auto& p : list.problems)
    reported |= p.find("protected system job") != std::string::npos;
  CHECK(reported);
  CHECK(test::read_all(store.actions_file()).empty());
  bool kept = false;
  for (auto& e : fs::directory_iterator{dir})
    kept |= e.path().filename().string().rfind("action.jsonl.rejected-", 0)
            == 0;
  CHECK(kept);
  // jobs.json now holds the merge in the original's camelCase shape.
  auto doc = json::parse(test::read_all(store.file()));
  CHECK(doc["version"] == 1);
  bool saw = false;
  for (auto& j : doc["jobs"])
    if (j["id"] == "a7e19b04") {
      saw = true;
      CHECK(j["schedule"]["everyMs"] == 3600000);
      CHECK(j["payload"]["sessionKey"] == "cli:direct");
      CHECK(j["state"].contains("nextRunAtMs"));
      CHECK(j.contains("deleteAfterRun"));
    }
  CHECK(saw);
}

TEST_CASE("a line appended later is merged by the next read") {
  test::scratch_dir ws;
  auto dir = copy_fixture_cron(ws);
  cron::job_store store{dir};
  store.read();
  auto before = store.stamp();
  {
    std::ofstream out{store.actions_file(), std::ios::app};
    out << R"({"action": "del", "params": {"job_id": "a7e19b04"}})" << "\n";
  }
  CHECK(store.stamp() != before); // the scheduler notices the queue
  auto list = store.read();
  CHECK_FALSE(find(list.jobs, "a7e19b04"));
  CHECK(list.problems.empty());
}

TEST_CASE("the store waits while the original holds cron.lock") {
  test::scratch_dir ws;
  auto dir = copy_fixture_cron(ws);
  cron::job_store store{dir};
  file_lock theirs{ws.path + "/cron.lock"};
  REQUIRE(theirs.held());
  std::atomic<bool> done{false};
  auto reader = std::async(std::launch::async, [&] {
    auto list = store.read();
    done = true;
    return list.jobs.size();
  });
  std::this_thread::sleep_for(200ms);
  CHECK_FALSE(done.load());
  theirs.release();
  CHECK(reader.get() == 3);
}

TEST_CASE("system jobs are registered and retired as the original does") {
  test::scratch_dir ws;
  auto dir = copy_fixture_cron(ws);
  cron::job_store store{dir};
  constexpr int64_t now = 1780308000000;
  cron::job dream;
  dream.id = dream.name = "dream";
  dream.schedule = {"every", 0, 3 * 3600 * 1000, "", ""};
  REQUIRE(cron::reconcile_system_jobs(store, {dream}, {"heartbeat"}, now)
          .empty());
  auto list = store.read();
  CHECK_FALSE(find(list.jobs, "heartbeat"));
  auto* d = find(list.jobs, "dream");
  REQUIRE(d);
  CHECK(d->payload_kind == "system_event");
  CHECK(d->next_run_at_ms == now + 3 * 3600 * 1000);
  CHECK(d->created_at_ms == now);
  // Still protected against the cron tool.
  auto removed = cron::remove_job(store, "dream");
  CHECK_FALSE(removed.ok);
  CHECK(removed.text.find("protected") != std::string::npos);
}
