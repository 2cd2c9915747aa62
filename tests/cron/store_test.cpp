// The jobs store and the scheduler's tick on a simulated clock: add, list,
// remove, firing of at/every/cron, restarts (no double fire, no silent
// skip), corrupted files set aside, nanobot's file format.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "actors/cron/cron_ops.hpp"
#include "actors/cron/schedule.hpp"
#include "tests/support/scratch_dir.hpp"

namespace {

using namespace nb::cron;
using nb::test::read_all;
using nb::test::scratch_dir;
using nb::test::write_all;
using json = nlohmann::json;

constexpr int64_t sec = 1000;
constexpr int64_t minute = 60 * sec;
// 2026-06-01T10:00:00Z
constexpr int64_t store_t0 = 1780308000000;

add_request from_chat(std::string message) {
  add_request rq;
  rq.message = std::move(message);
  rq.session_key = "telegram:42";
  rq.channel = "telegram";
  rq.chat_id = "42";
  return rq;
}

std::string added(job_store& store, add_request rq, int64_t now = store_t0) {
  auto r = add_job(store, rq, now);
  REQUIRE_MESSAGE(r.ok, r.text);
  return r.job_id;
}

std::vector<std::string> due_ids(job_store& store, int64_t now) {
  std::vector<std::string> out;
  for (auto& j : take_due(store, now).due)
    out.push_back(j.id);
  return out;
}

} // namespace

TEST_CASE("jobs are added listed and removed with nanobot's replies") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  CHECK(list_jobs(store, store_t0).text == "No scheduled jobs.");
  auto rq = from_chat("drink water");
  rq.every_seconds = 7200;
  auto r = add_job(store, rq, store_t0);
  REQUIRE(r.ok);
  CHECK(r.text == "Created job 'drink water' (id: " + r.job_id + ")");
  CHECK(r.job_id.size() == 8);
  auto listing = list_jobs(store, store_t0).text;
  CHECK(listing.find("Scheduled jobs:\n- drink water (id: " + r.job_id
                     + ", every 2h)")
        != std::string::npos);
  CHECK(listing.find("Next run: ") != std::string::npos);
  CHECK(remove_job(store, "nope").text == "Job nope not found");
  CHECK(remove_job(store, r.job_id).text == "Removed job " + r.job_id);
  CHECK(list_jobs(store, store_t0).text == "No scheduled jobs.");
}

TEST_CASE("bad add requests are refused with the reason") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  auto rq = from_chat("");
  rq.every_seconds = 60;
  CHECK(add_job(store, rq, store_t0).text.find("message is required")
        != std::string::npos);
  rq = from_chat("x");
  CHECK(add_job(store, rq, store_t0).text.find("exactly one of")
        != std::string::npos);
  rq.every_seconds = 60;
  rq.cron_expr = "* * * * *";
  CHECK(add_job(store, rq, store_t0).text.find("exactly one of")
        != std::string::npos);
  rq = from_chat("x");
  rq.every_seconds = 60;
  rq.tz = "Europe/Berlin";
  CHECK(
    add_job(store, rq, store_t0).text.find("tz can only be used with cron_expr")
    != std::string::npos);
  rq = from_chat("x");
  rq.cron_expr = "0 25 * * *";
  CHECK(add_job(store, rq, store_t0).text.find("hour field")
        != std::string::npos);
  rq = from_chat("x");
  rq.cron_expr = "0 9 * * *";
  rq.tz = "Moon/Base";
  CHECK(add_job(store, rq, store_t0).text.find("unknown time zone")
        != std::string::npos);
  rq = from_chat("x");
  rq.at = "2020-01-01T00:00:00Z";
  CHECK(add_job(store, rq, store_t0).text.find("in the past")
        != std::string::npos);
  rq = from_chat("x");
  rq.every_seconds = 60;
  rq.session_key.clear();
  rq.channel.clear();
  CHECK(add_job(store, rq, store_t0)
          .text.find("must be created from a chat session")
        != std::string::npos);
  CHECK(list_jobs(store, store_t0).text == "No scheduled jobs.");
}

TEST_CASE("every jobs fire on their grid of a simulated clock") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  auto rq = from_chat("stretch");
  rq.every_seconds = 60;
  auto id = added(store, rq);
  CHECK(due_ids(store, store_t0 + 59 * sec).empty());
  CHECK(due_ids(store, store_t0 + 60 * sec) == std::vector<std::string>{id});
  CHECK(due_ids(store, store_t0 + 61 * sec).empty());
  // Run late (the tick came 5 s after the slot): the grid does not move.
  CHECK(due_ids(store, store_t0 + 125 * sec) == std::vector<std::string>{id});
  auto r = take_due(store, store_t0 + 126 * sec);
  CHECK(r.due.empty());
  REQUIRE(r.next_wake_ms);
  CHECK(*r.next_wake_ms == store_t0 + 180 * sec);
}

TEST_CASE("an at job fires once and is removed") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  auto rq = from_chat("call mom");
  rq.at = nb::cron::format_iso(store_t0 + 10 * minute, "UTC");
  auto id = added(store, rq);
  CHECK(due_ids(store, store_t0 + 10 * minute - 1).empty());
  CHECK(due_ids(store, store_t0 + 10 * minute) == std::vector<std::string>{id});
  CHECK(due_ids(store, store_t0 + 11 * minute).empty());
  CHECK(list_jobs(store, store_t0).text == "No scheduled jobs.");
}

TEST_CASE("a cron job fires at the wall-clock time of its zone") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  auto rq = from_chat("standup");
  rq.cron_expr = "0 13 * * *";
  rq.tz = "Europe/Berlin"; // 13:00 CEST = 11:00 UTC
  auto id = added(store, rq);
  CHECK(due_ids(store, store_t0 + 59 * minute).empty());
  CHECK(due_ids(store, store_t0 + 60 * minute) == std::vector<std::string>{id});
  CHECK(due_ids(store, store_t0 + 61 * minute).empty());
  CHECK(due_ids(store, store_t0 + 60 * minute + 24 * 60 * minute)
        == std::vector<std::string>{id});
}

TEST_CASE("a restart never fires a job twice") {
  scratch_dir ws;
  std::string id;
  {
    job_store store{ws.at("cron")};
    auto rq = from_chat("stretch");
    rq.every_seconds = 60;
    id = added(store, rq);
    CHECK(due_ids(store, store_t0 + 60 * sec) == std::vector<std::string>{id});
  }
  // A new process on the same files, at the same moment.
  job_store again{ws.at("cron")};
  CHECK(due_ids(again, store_t0 + 60 * sec).empty());
  CHECK(due_ids(again, store_t0 + 120 * sec) == std::vector<std::string>{id});
}

TEST_CASE("a run missed while down runs once within the grace period") {
  scratch_dir ws;
  std::string id;
  {
    job_store store{ws.at("cron")};
    auto rq = from_chat("stretch");
    rq.every_seconds = 60;
    id = added(store, rq);
    CHECK(due_ids(store, store_t0 + 60 * sec).size() == 1);
  }
  // Down from 1:01 to 5:00: four slots passed; one run, no burst.
  job_store again{ws.at("cron")};
  CHECK(due_ids(again, store_t0 + 300 * sec + 500)
        == std::vector<std::string>{id});
  CHECK(due_ids(again, store_t0 + 301 * sec).empty());
  CHECK(due_ids(again, store_t0 + 360 * sec) == std::vector<std::string>{id});
}

TEST_CASE("a run missed beyond the grace period is recorded as skipped") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  auto rq = from_chat("standup");
  rq.cron_expr = "0 13 * * *";
  rq.tz = "Europe/Berlin";
  added(store, rq);
  auto r = take_due(store, store_t0 + 3 * 60 * minute); // two hours late
  CHECK(r.due.empty());
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("missed the run") != std::string::npos);
  auto listing = list_jobs(store, store_t0).text;
  CHECK(listing.find("(skipped: missed the run at 2026-06-01T13:00:00+02:00")
        != std::string::npos);
  // Still scheduled: the next day at 13:00.
  CHECK(r.next_wake_ms == store_t0 + 25 * 60 * minute);
  // A one-shot missed by hours stays visible, disabled, never silently gone.
  auto at = from_chat("call mom");
  at.at = nb::cron::format_iso(store_t0 + 4 * 60 * minute, "UTC");
  added(store, at);
  take_due(store, store_t0 + 10 * 60 * minute);
  listing = list_jobs(store, store_t0).text;
  CHECK(listing.find("call mom") != std::string::npos);
  CHECK(listing.find("[disabled]") != std::string::npos);
}

TEST_CASE("a corrupted store is set aside and reported") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  write_all(store.file(), "{\"version\": 1, \"jobs\": [ {oops");
  auto listing = list_jobs(store, store_t0);
  CHECK(listing.text.find("No scheduled jobs.") != std::string::npos);
  REQUIRE(listing.problems.size() == 1);
  CHECK(listing.problems[0].find("could not be read") != std::string::npos);
  int aside = 0;
  for (auto& e : std::filesystem::directory_iterator{ws.at("cron")}) {
    auto name = e.path().filename().string();
    if (name.rfind("jobs.json.corrupt-", 0) == 0) {
      ++aside;
      CHECK(read_all(e.path().string())
            == "{\"version\": 1, \"jobs\": [ {oops");
    }
  }
  CHECK(aside == 1);
  // The store works again; nothing more is reported.
  auto rq = from_chat("x");
  rq.every_seconds = 60;
  added(store, rq);
  CHECK(list_jobs(store, store_t0).problems.empty());
}

TEST_CASE("one bad job keeps the good ones and the original bytes") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  json good = {{"id", "good0001"},
               {"name", "ok"},
               {"schedule", {{"kind", "every"}, {"everyMs", 60000}}},
               {"payload", {{"message", "m"}, {"sessionKey", "slack:c1"},
                            {"originChannel", "slack"},
                            {"originChatId", "c1"}}}};
  json bad = {{"id", "bad00001"}, {"schedule", {{"kind", "hourly"}}}};
  write_all(store.file(), json{{"version", 1}, {"jobs", {good, bad}}}.dump());
  auto listing = list_jobs(store, store_t0);
  CHECK(listing.text.find("good0001") != std::string::npos);
  REQUIRE(listing.problems.size() == 1);
  CHECK(listing.problems[0].find("bad00001") != std::string::npos);
  CHECK(listing.problems[0].find("schedule.kind") != std::string::npos);
}

TEST_CASE("nanobot's store format is read and written") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  // snake_case keys, a numeric string, and a legacy deliver/channel/to job.
  json legacy = {{"id", "abc12345"},
                 {"name", "old"},
                 {"enabled", true},
                 {"schedule", {{"kind", "every"}, {"every_ms", "60000"}}},
                 {"payload",
                  {{"kind", "agent_turn"},
                   {"message", "ping"},
                   {"deliver", true},
                   {"channel", "telegram"},
                   {"to", "99"}}},
                 {"state", {{"next_run_at_ms", store_t0 + 60000}}},
                 {"created_at_ms", store_t0}};
  write_all(store.file(), json{{"version", 1}, {"jobs", {legacy}}}.dump());
  auto r = take_due(store, store_t0 + 60000);
  REQUIRE(r.due.size() == 1);
  CHECK(r.due[0].session_key == "telegram:99");
  CHECK(r.due[0].origin_channel == "telegram");
  CHECK(r.due[0].origin_chat_id == "99");
  auto doc = json::parse(read_all(store.file()));
  CHECK(doc["version"] == 1);
  auto& j = doc["jobs"][0];
  CHECK(j["schedule"]["everyMs"] == 60000);
  CHECK(j["schedule"]["atMs"].is_null());
  CHECK(j["payload"]["sessionKey"] == "telegram:99");
  CHECK(j["payload"]["deliver"] == true); // unknown keys survive
  CHECK(j["state"]["lastStatus"] == "ok");
  CHECK(j["state"]["runHistory"].size() == 1);
  CHECK(j["state"]["nextRunAtMs"] == store_t0 + 120000);
  CHECK(j["createdAtMs"] == store_t0);
}

TEST_CASE("run history keeps the last 20 runs") {
  scratch_dir ws;
  job_store store{ws.at("cron")};
  auto rq = from_chat("tick");
  rq.every_seconds = 1;
  added(store, rq);
  for (int k = 1; k <= 25; ++k)
    CHECK(due_ids(store, store_t0 + k * sec).size() == 1);
  auto doc = json::parse(read_all(store.file()));
  auto& h = doc["jobs"][0]["state"]["runHistory"];
  REQUIRE(h.size() == 20);
  CHECK(h[19]["runAtMs"] == store_t0 + 25 * sec);
}
