// The sessions folder of a workspace, decided as the original nanobot does:
// the two markers, a copied workspace rotated to a fresh id, a moved one
// keeping its id, a lost id file recovered; and the original's lock on the
// session files honoured by every read and write.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "actors/common/file_lock.hpp"
#include "actors/store/session_files.hpp"
#include "tests/store/temp_dir.hpp"

namespace {

using namespace nb;
using namespace std::chrono_literals;
using nb::test::list_dir;
using nb::test::slurp;
using nb::test::spit;
using nb::test::temp_dir;
using json = nlohmann::json;
namespace fs = std::filesystem;

std::string id_of(const std::string& ws) {
  auto id = slurp(ws + "/.nanobot/workspace-id");
  if (!id.empty() && id.back() == '\n')
    id.pop_back();
  return id;
}

std::string real(const std::string& p) {
  return fs::canonical(p).string();
}

} // namespace

TEST_CASE("a new workspace gets both markers the original expects") {
  temp_dir d;
  auto cfg = d.path + "/home/.nanobot";
  auto ws = d.path + "/./ws"; // recorded resolved
  auto r = resolve_sessions_dir(cfg, ws);
  REQUIRE_MESSAGE(r, nb::test::why(r));
  auto id = id_of(d.path + "/ws");
  REQUIRE(id.size() == 32);
  CHECK(*r == real(cfg) + "/sessions/" + id);
  CHECK(slurp(*r + "/.workspace") == real(d.path + "/ws") + "\n");
  CHECK(nb::test::mode_of(*r + "/.workspace") == 0600);
  CHECK(list_dir(cfg + "/sessions").count(".workspace-migration.lock") == 1);
  // A session write leaves the original's session-files lock beside it.
  REQUIRE_FALSE(append_session(*r, "cli:direct",
                               {json{{"role", "user"}, {"content", "x"}}.dump()}));
  CHECK(fs::exists(*r + "/.session-files.lock"));
}

TEST_CASE("a copied workspace gets its own id and a moved one keeps it") {
  temp_dir d;
  auto cfg = d.path + "/cfg";
  auto ws = d.path + "/ws";
  auto first = resolve_sessions_dir(cfg, ws);
  REQUIRE(first);
  auto id = id_of(ws);

  // Copy: both directories exist, so the copy may not share transcripts.
  fs::copy(ws, d.path + "/copy", fs::copy_options::recursive);
  auto copy = resolve_sessions_dir(cfg, d.path + "/copy");
  REQUIRE_MESSAGE(copy, nb::test::why(copy));
  CHECK(id_of(d.path + "/copy") != id);
  CHECK(*copy != *first);
  CHECK(slurp(*copy + "/.workspace") == real(d.path + "/copy") + "\n");
  CHECK(slurp(*first + "/.workspace") == real(ws) + "\n");
  CHECK(id_of(ws) == id);

  // Move: the recorded path is gone, so the marker follows the workspace.
  fs::rename(ws, d.path + "/moved");
  auto moved = resolve_sessions_dir(cfg, d.path + "/moved");
  REQUIRE(moved);
  CHECK(*moved == *first);
  CHECK(slurp(*first + "/.workspace") == real(d.path + "/moved") + "\n");
}

TEST_CASE("a lost workspace-id is recovered from the namespace marker") {
  temp_dir d;
  auto cfg = d.path + "/cfg";
  auto ws = d.path + "/ws";
  auto first = resolve_sessions_dir(cfg, ws);
  REQUIRE(first);
  auto id = id_of(ws);
  fs::remove(ws + "/.nanobot/workspace-id");
  auto again = resolve_sessions_dir(cfg, ws);
  REQUIRE(again);
  CHECK(*again == *first);
  CHECK(id_of(ws) == id);
}

TEST_CASE("a namespace left without a marker by an older build is claimed") {
  temp_dir d;
  auto cfg = d.path + "/cfg";
  auto ws = d.path + "/ws";
  fs::create_directories(ws + "/.nanobot");
  auto id = std::string(32, 'a');
  spit(ws + "/.nanobot/workspace-id", id + "\n");
  fs::create_directories(cfg + "/sessions/" + id);
  spit(cfg + "/sessions/" + id + "/Y2xpOmRpcmVjdA.jsonl", "{}\n");
  auto r = resolve_sessions_dir(cfg, ws);
  REQUIRE_MESSAGE(r, nb::test::why(r));
  CHECK(slurp(*r + "/.workspace") == real(ws) + "\n");
  CHECK(slurp(*r + "/Y2xpOmRpcmVjdA.jsonl") == "{}\n");
}

TEST_CASE("symlinked markers and sessions inside the workspace are refused") {
  temp_dir d;
  auto ws = d.path + "/ws";
  fs::create_directories(ws + "/.nanobot");
  spit(d.path + "/elsewhere", std::string(32, 'b') + "\n");
  fs::create_symlink(d.path + "/elsewhere", ws + "/.nanobot/workspace-id");
  auto r = resolve_sessions_dir(d.path + "/cfg", ws);
  REQUIRE_FALSE(r);
  CHECK(store_error_text(r.error()).find("symlink") != std::string::npos);

  auto inside = resolve_sessions_dir(d.path + "/ws2/cfg", d.path + "/ws2");
  REQUIRE_FALSE(inside);
  CHECK(store_error_text(inside.error()).find("outside the agent workspace")
        != std::string::npos);
}

TEST_CASE("a session write waits while the original holds its lock") {
  temp_dir d;
  auto dir = resolve_sessions_dir(d.path + "/cfg", d.path + "/ws");
  REQUIRE(dir);
  // What the original's filelock does: flock(LOCK_EX) on the lock file.
  file_lock theirs{*dir + "/.session-files.lock"};
  REQUIRE(theirs.held());
  std::atomic<bool> done{false};
  auto writer = std::async(std::launch::async, [&] {
    auto err = append_session(*dir, "k",
                              {json{{"role", "user"}, {"content", "x"}}.dump()});
    done = true;
    return err;
  });
  std::this_thread::sleep_for(200ms);
  CHECK_FALSE(done.load());
  theirs.release();
  CHECK_FALSE(writer.get());
  CHECK(done.load());
  // Our own workers share the lock: two readers never wait for each other.
  file_lock a{*dir + "/.session-files.lock", lock_mode::shared};
  file_lock b{*dir + "/.session-files.lock", lock_mode::shared, 100ms};
  CHECK(a.held());
  CHECK(b.held());
}

TEST_CASE("a rewrite keeps the original's last_consolidated and provider state") {
  temp_dir d;
  auto path = d.path + "/" + session_file_name("k");
  spit(path,
       R"({"_type": "metadata", "key": "k", "created_at": "2026-11-30T09:12:03.418207", "updated_at": "2026-11-30T09:12:03.418207", "metadata": {}, "last_consolidated": 2})"
       "\n"
       R"({"_type": "provider_state", "state": {"v": 1}})"
       "\n"
       R"({"role": "user", "content": "a"})"
       "\n");
  std::vector<std::string> msgs;
  for (auto c : {"a", "b", "c"})
    msgs.push_back(json{{"role", "user"}, {"content", c}}.dump());
  REQUIRE_FALSE(replace_session(d.path, "k", "{}", msgs));
  auto text = slurp(path);
  auto first = json::parse(text.substr(0, text.find('\n')));
  CHECK(first["last_consolidated"] == 2);
  CHECK(first["created_at"] == "2026-11-30T09:12:03.418207");
  // Its message stays first: the state stays, "b" and "c" pending on it
  // (provider_state_test.cpp has the rest).
  auto second = text.substr(text.find('\n') + 1);
  auto state = json::parse(second.substr(0, second.find('\n')));
  CHECK(state["_type"] == "provider_state");
  CHECK(state["state"]["v"] == 1);
  CHECK(state["state"]["pending_messages"].size() == 2);
  // Out of range for the new messages: 0, as the original would reset it.
  REQUIRE_FALSE(replace_session(d.path, "k", "{}", {msgs[0]}));
  text = slurp(path);
  CHECK(json::parse(text.substr(0, text.find('\n')))["last_consolidated"] == 0);
}

TEST_CASE("an append moves the original's updated_at to now, in place") {
  temp_dir d;
  auto path = d.path + "/" + session_file_name("telegram:4242");
  // As the original writes it: Python's spacing, its key order, and a
  // nested "updated_at" in metadata that is not the session's.
  std::string meta
    = R"({"_type": "metadata", "key": "telegram:4242", "created_at": "2026-11-30T09:12:03.418207", "updated_at": "2026-11-30T09:14:41.000391", "metadata": {"title": {"updated_at": "2026-11-30T09:12:03.418207"}}, "last_consolidated": 0})";
  std::string user
    = R"({"role": "user", "content": "a", "timestamp": "2026-11-30T09:12:03.420113"})";
  spit(path, meta + "\n" + user + "\n");
  REQUIRE_FALSE(append_session(
    d.path, "telegram:4242",
    {json{{"role", "assistant"}, {"content", "b"}}.dump()}));
  auto text = slurp(path);
  auto nl = text.find('\n');
  auto first = json::parse(text.substr(0, nl));
  auto updated = first["updated_at"].get<std::string>();
  CHECK(updated > "2026-11-30T09:14:41.000391");
  CHECK(updated.size() == 26);
  CHECK(first["created_at"] == "2026-11-30T09:12:03.418207");
  CHECK(first["metadata"]["title"]["updated_at"]
        == "2026-11-30T09:12:03.418207");
  // Nothing else of the line moved: the same bytes but the date.
  CHECK(text.substr(0, nl).size() == meta.size());
  CHECK(text.substr(nl + 1, user.size()) == user);
  auto snap = load_session(d.path, "telegram:4242");
  REQUIRE(snap);
  CHECK(snap->messages.size() == 2);

  // A date written without microseconds (other length) is left alone.
  auto short_meta
    = R"({"_type": "metadata", "key": "k", "created_at": "2026-11-30T09:12:03", "updated_at": "2026-11-30T09:12:03", "metadata": {}, "last_consolidated": 0})";
  auto other = d.path + "/" + session_file_name("k");
  spit(other, std::string{short_meta} + "\n");
  REQUIRE_FALSE(append_session(d.path, "k", {user}));
  auto text2 = slurp(other);
  CHECK(text2.substr(0, text2.find('\n')) == short_meta);
}
