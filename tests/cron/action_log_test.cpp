// The original's cron/action.jsonl and cron.lock, on a copy of the fixture
// home's cron folder: queued adds and deletes are merged into jobs.json
// (a delete of a protected job refused and kept aside), the queue is
// emptied, and every store access waits while the original holds the lock.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <set>
#include <sstream>
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

namespace {

std::vector<json> queue_lines(const std::string& path) {
  std::vector<json> out;
  std::istringstream in{test::read_all(path)};
  std::string line;
  while (std::getline(in, line))
    if (!line.empty())
      out.push_back(json::parse(line));
  return out;
}

std::set<std::string> keys(const json& j) {
  std::set<std::string> out;
  for (auto& [k, v] : j.items())
    out.insert(k);
  return out;
}

} // namespace

TEST_CASE("a client queues its changes as the original's lines and never writes jobs.json") {
  test::scratch_dir ws;
  auto dir = copy_fixture_cron(ws);
  cron::job_store client{dir, cron::store_role::client};
  auto jobs_before = test::read_all(client.file());
  auto fixture_add = queue_lines(client.actions_file()).at(0);
  constexpr int64_t now = 1780308000000;

  cron::add_request rq;
  rq.name = "Water the fern";
  rq.message = "Water the fern";
  rq.every_seconds = 86400;
  rq.session_key = "telegram:4242";
  rq.channel = "telegram";
  rq.chat_id = "4242";
  auto added = cron::add_job(client, rq, now);
  REQUIRE(added.ok);

  // jobs.json is the scheduler's alone; the change waits in the queue, as
  // the original's `agent` leaves it (nanobot/cron/service.py _append_action).
  CHECK(test::read_all(client.file()) == jobs_before);
  auto lines = queue_lines(client.actions_file());
  REQUIRE(lines.size() == 4); // the fixture's three, then ours
  auto& ours = lines.back();
  CHECK(ours["action"] == "add");
  auto& p = ours["params"];
  // Exactly the dataclass fields (the original rebuilds the job with
  // CronPayload(**params) and the like, which refuse any other key),
  // checked against the fixture's line written from asdict(CronJob).
  auto& f = fixture_add["params"];
  CHECK(keys(p) == keys(f));
  for (auto* part : {"schedule", "payload", "state"}) {
    INFO(part);
    CHECK(keys(p[part]) == keys(f[part]));
  }
  CHECK(p["id"] == added.job_id);
  CHECK(p["schedule"]["kind"] == "every");
  CHECK(p["schedule"]["every_ms"] == 86400000);
  CHECK(p["schedule"]["at_ms"].is_null());
  CHECK(p["payload"]["kind"] == "agent_turn");
  CHECK(p["payload"]["session_key"] == "telegram:4242");
  CHECK(p["payload"]["origin_chat_id"] == "4242");
  CHECK(p["payload"]["deliver"] == false);
  CHECK(p["payload"]["channel_meta"].is_object());
  CHECK(p["state"]["next_run_at_ms"] == now + 86400000);
  CHECK(p["state"]["run_history"].is_array());
  CHECK(p["created_at_ms"] == now);
  CHECK(p["delete_after_run"] == false);

  // The client sees the queue merged, and leaves it (and nothing aside).
  auto list = client.read();
  CHECK(find(list.jobs, added.job_id));
  CHECK(find(list.jobs, "a7e19b04"));
  CHECK_FALSE(find(list.jobs, "3fa1c2d9"));
  CHECK(queue_lines(client.actions_file()).size() == 4);
  for (auto& e : fs::directory_iterator{dir})
    CHECK(e.path().filename().string().rfind("action.jsonl.rejected-", 0)
          != 0);

  // A removal is a del line; a protected job stays, with nothing queued.
  CHECK(cron::remove_job(client, "a7e19b04").ok);
  CHECK_FALSE(cron::remove_job(client, "dream").ok);
  lines = queue_lines(client.actions_file());
  REQUIRE(lines.size() == 5);
  CHECK(lines.back() == json{{"action", "del"},
                             {"params", {{"job_id", "a7e19b04"}}}});
  CHECK(test::read_all(client.file()) == jobs_before);

  // The scheduler merges the lot into jobs.json and empties the queue.
  cron::job_store owner{dir};
  auto merged = owner.read();
  CHECK(find(merged.jobs, added.job_id));
  CHECK_FALSE(find(merged.jobs, "a7e19b04"));
  REQUIRE(find(merged.jobs, "dream"));
  CHECK(test::read_all(owner.actions_file()).empty());
  CHECK(test::read_all(owner.file()).find(added.job_id) != std::string::npos);
}
