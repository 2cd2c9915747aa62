// A home whose workspace is the config dir itself (config.json beside the
// agent's files), with real bwrap and real files: the sandbox hides
// config.json with a mount over the file, and the kernel detaches such a
// mount in every other mount namespace when the file is renamed over, as an
// atomic save does. A command already running (a long exec, a session) must
// still never read the keys while the gateway saves the config, and the
// rest of the gateway's own state in that dir stays hidden as it is in the
// usual layout (where the whole config dir is).
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "actors/tools/sandbox/config_workspace.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "actors/tools/sandbox/sandboxed_run.hpp"
#include "config/config_save.hpp"
#include "config/inplace_save.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using namespace std::chrono;

namespace {

std::string run_cw(const sandbox_request& req, const std::string& command) {
  process_options o;
  o.program = "/bin/bash";
  o.argv = {"/bin/bash", "-c", command};
  o.env = {"PATH=/usr/bin:/bin", "HOME=/nonexistent", "LANG=C.UTF-8"};
  o.cwd = req.cwd;
  o.timeout_s = 60;
  auto r = run_sandboxed(o, req, sandbox_status_for());
  return r.error + r.out.head + r.out.tail + r.err.head + r.err.tail;
}

// The odd layout: workspace == config dir, config.json in it.
sandbox_request config_dir_workspace(const test::temp_tree& t) {
  sandbox_request req;
  req.workspace = t.ws;
  req.cwd = t.ws;
  req.config_dir = t.ws;
  req.config_file = t.ws + "/config.json";
  return req;
}

std::string config_with_key(const std::string& key) {
  return nlohmann::json{{"providers", {{"custom", {{"apiKey", key}}}}}}.dump(2);
}

// Waits until the sandboxed command has made `rel` (it has started).
bool wait_for(const test::temp_tree& t, const std::string& rel) {
  auto until = steady_clock::now() + seconds(20);
  while (!t.exists(rel) && steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(5));
  return t.exists(rel);
}

// A command reading config.json (and where its save keeps a copy) every
// 50 ms for ~3 s; prints the keys it finds.
const char* reader_loop = "touch started; for i in $(seq 1 60); do "
                          "grep -ho 'sk-[a-z0-9-]*' config.json "
                          ".config-save/* 2>/dev/null; sleep 0.05; "
                          "done; echo reader-done";

} // namespace

TEST_CASE("config.json saved by the gateway while a sandboxed command runs "
          "stays hidden from it") {
  if (!sandbox_status_for().available)
    return;
  test::temp_tree t;
  t.put("ws/config.json", config_with_key("sk-old-canary"));
  auto req = config_dir_workspace(t);
  auto config = req.config_file;
  auto reader = std::async(std::launch::async,
                           [&] { return run_cw(req, reader_loop); });
  REQUIRE(wait_for(t, "ws/started"));
  // The WebUI's and `nanobot provider login`'s save: read, edit, save.
  for (int i = 0; i < 5; ++i) {
    auto key = "sk-saved-canary-" + std::to_string(i);
    auto w = edit_config_file(config, [&](const std::string&) {
      return std::optional<std::string>{config_with_key(key)};
    });
    REQUIRE_MESSAGE(w.outcome == write_outcome::written, w.error);
    CHECK(has(t.get("ws/config.json"), key));
    std::this_thread::sleep_for(milliseconds(300));
  }
  auto out = reader.get();
  INFO(out);
  CHECK(has(out, "reader-done"));
  CHECK_FALSE(has(out, "canary"));
  // The save left no copy of the keys anywhere the command could see.
  CHECK_FALSE(t.exists("ws/.config-save/config.json"));
}

TEST_CASE("a config dir that is the workspace hides the gateway's own state "
          "and keeps the agent's files") {
  if (!sandbox_status_for().available)
    return;
  test::temp_tree t;
  t.put("ws/config.json", config_with_key("sk-config-canary"));
  // The gateway's, each found below config_dir() in the code.
  for (auto rel : {"sessions/ws-1/api_default.jsonl", "inbox/journal",
                   "history/cli", "media/telegram/photo.jpg",
                   "channels/matrix.sync", "whatsapp-auth/bridge-token",
                   "qq/qq-groups.json", "pairing.json",
                   "plugin-data/ws-1/p/state", "cli-apps/installed.json",
                   "run/gateway.json", "logs/gateway.log"})
    t.put(std::string{"ws/"} + rel, std::string{"state-canary in "} + rel);
  // The agent's own, visible in the usual layout too.
  t.put("ws/memory/MEMORY.md", "agent memory");
  t.put("ws/cron/jobs.json", "agent cron");
  t.put("ws/notes.txt", "agent notes");
  auto req = config_dir_workspace(t);
  auto out = run_cw(req, "cat config.json; for f in $(find . -type f); do "
                         "echo \"== $f\"; cat \"$f\"; done 2>&1");
  INFO(out);
  CHECK_FALSE(has(out, "canary"));
  CHECK(has(out, "agent memory"));
  CHECK(has(out, "agent cron"));
  CHECK(has(out, "agent notes"));
  // The agent can still write beside them.
  CHECK(has(run_cw(req, "echo made > new.txt && cat new.txt"), "made"));
  CHECK(t.get("ws/new.txt") == "made\n");
}

TEST_CASE("the config-dir workspace is prepared at start and warned about") {
  test::temp_tree t;
  t.put("ws/config.json", "{}");
  t.put("ws/workspace/x", "");
  // The usual layout: nothing to do, no warning, saves still by rename.
  CHECK(prepare_config_workspace(t.ws + "/workspace", t.ws + "/config.json")
          .empty());
  CHECK_FALSE(config_saves_in_place(t.ws + "/config.json"));
  // The workspace is the config dir: saves keep the inode from now on, and
  // the log says what an editor's rename would still do.
  auto note = prepare_config_workspace(t.ws, t.ws + "/config.json");
  CHECK(has(note, "renaming"));
  CHECK(has(note, "out of the config dir"));
  CHECK(config_saves_in_place(t.ws + "/config.json"));
}

TEST_CASE("the file tools leave the gateway's state alone in a config dir "
          "that is the workspace") {
  test::temp_tree t;
  t.put("ws/config.json", config_with_key("sk-config-canary"));
  t.put("ws/sessions/ws-1/telegram_42.jsonl", "chat-canary");
  t.put("ws/inbox/journal", "inbox-canary");
  t.put("ws/logs/gateway.log", "log-canary");
  t.put("ws/notes.txt", "agent notes, canary-free");
  auto cfg = test::settings_for(t.ws);
  cfg.config_path = t.ws + "/config.json";
  auto ctx = make_tool_context(cfg, "cli:direct");
  for (auto path : {"config.json", "./sessions/ws-1/telegram_42.jsonl",
                    "inbox/journal", "logs/../logs/gateway.log"}) {
    CAPTURE(path);
    auto out = test::run(ctx, "read_file", {{"path", path}});
    CHECK(out.is_error);
    CHECK(has(out.content, "the gateway's own state"));
    CHECK_FALSE(has(out.content, "-canary"));
  }
  CHECK(test::run(ctx, "write_file",
                  {{"path", "inbox/journal"}, {"content", "forged"}})
          .is_error);
  CHECK(t.get("ws/inbox/journal") == "inbox-canary");
  auto grep = test::run(ctx, "grep", {{"pattern", "canary"},
                                      {"output_mode", "content"}});
  INFO(grep.content);
  CHECK(has(grep.content, "canary-free"));
  for (auto secret : {"sk-config", "chat-canary", "inbox-canary", "log-canary"})
    CHECK_FALSE(has(grep.content, secret));
  auto found = test::run(ctx, "find_files", {{"glob", "**"}});
  CHECK(has(found.content, "notes.txt"));
  CHECK_FALSE(has(found.content, "config.json"));
  CHECK_FALSE(has(found.content, "journal"));
  CHECK_FALSE(has(found.content, "telegram_42"));
  auto listed =
    test::run(ctx, "list_dir", {{"path", "."}, {"recursive", true}});
  INFO(listed.content);
  CHECK(has(listed.content, "notes.txt"));
  CHECK_FALSE(has(listed.content, "telegram_42"));
  CHECK_FALSE(has(listed.content, "journal"));
  CHECK(has(test::run(ctx, "read_file", {{"path", "notes.txt"}}).content,
            "agent notes"));
  // The usual layout: the same names in a workspace are the agent's.
  cfg.config_path = t.root + "/config.json";
  auto usual = make_tool_context(cfg, "cli:direct");
  CHECK(has(test::run(usual, "read_file", {{"path", "logs/gateway.log"}})
              .content,
            "log-canary"));
}

TEST_CASE("the file tools leave a config dir inside the workspace alone") {
  // A listed agent's workspace may hold the config dir (main's may not):
  // the sandbox masks it whole, and the file tools refuse it whole.
  test::temp_tree t;
  t.put("ws/.nanobot/config.json", config_with_key("sk-inner-canary"));
  t.put("ws/.nanobot/inbox/journal", "inbox-canary");
  t.put("ws/notes.txt", "agent notes");
  auto cfg = test::settings_for(t.ws);
  cfg.config_path = t.ws + "/.nanobot/config.json";
  auto ctx = make_tool_context(cfg, "cli:direct");
  for (auto path : {".nanobot/config.json", ".nanobot/inbox/journal",
                    ".nanobot"}) {
    CAPTURE(path);
    auto out = test::run(ctx, "read_file", {{"path", path}});
    CHECK(out.is_error);
    CHECK_FALSE(has(out.content, "-canary"));
  }
  auto grep = test::run(ctx, "grep", {{"pattern", "canary|notes"},
                                      {"output_mode", "content"}});
  INFO(grep.content);
  CHECK(has(grep.content, "agent notes"));
  CHECK_FALSE(has(grep.content, "-canary"));
}
