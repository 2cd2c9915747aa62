// The user's message is appended to its session file while the model is
// already being asked (issue 22); what cannot be taken back waits for that
// append: the tool calls, SAVE and the answer. Proved on the real gateway.
// The append is held back without a timer: another chat's session file in
// the same store shard is a FIFO, so that chat's load blocks the shard's
// worker (as a hung disk would) until the test lets it read, and our
// session's append waits behind it in the shard's order.
#include "tests/crash/crash_home.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <httplib.h>

#include "actors/session/transcript.hpp"
#include "actors/store/session_files.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// The status and body of one API request to session `id`.
struct api_answer {
  int status = 0;
  std::string body;
};

std::future<api_answer> ask(const crash_home& h, const std::string& id,
                            const std::string& text) {
  int port = h.api_port;
  return std::async(std::launch::async, [port, id, text] {
    httplib::Client cli{"127.0.0.1", port};
    cli.set_read_timeout(60, 0);
    json body{{"model", "test-model"},
              {"messages", {{{"role", "user"}, {"content", text}}}},
              {"session_id", id}};
    auto r = cli.Post("/v1/chat/completions", body.dump(), "application/json");
    return r ? api_answer{r->status, r->body} : api_answer{};
  });
}

std::string sessions_dir(const crash_home& h) {
  return *resolve_sessions_dir(h.loaded());
}

/// An API session id whose key falls into the store shard of `key` for any
/// shard count from 1 to 8 (the store shards by std::hash of the key).
std::string same_shard_id(const std::string& key) {
  auto want = std::hash<std::string>{}(key) % 840;
  for (int i = 0;; ++i) {
    auto id = "blocker" + std::to_string(i);
    if (std::hash<std::string>{}("api:" + id) % 840 == want)
      return id;
  }
}

/// A FIFO where a session file would be: the store's load of that session
/// opens it and blocks; held() tells once it does (a reader is there) and
/// keeps it blocked in read() by holding the write end; release() lets it
/// read an empty file (the path is gone, so that session's next write
/// makes a regular file).
struct store_blocker {
  std::string path;
  int fd = -1;
  explicit store_blocker(std::string p) : path(std::move(p)) {
    fs::create_directories(fs::path(path).parent_path());
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  }
  bool held() {
    if (fd < 0)
      fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    return fd >= 0;
  }
  void release() {
    ::unlink(path.c_str());
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }
  ~store_blocker() { release(); }
};

int lines_in(const fs::path& p) {
  std::ifstream in{p};
  int n = 0;
  for (std::string line; std::getline(in, line);)
    ++n;
  return n;
}

std::string content_of(const json& m) {
  return m.contains("content") && m["content"].is_string()
           ? m["content"].get<std::string>()
           : std::string{};
}

/// Requests whose last message is the user's and contains `text`: how
/// often the model was asked about it (not counting later iterations).
int asked_about(const fake_llm& llm, const std::string& text) {
  int n = 0;
  for (auto& r : llm.requests())
    if (r.body.is_object() && r.body.contains("messages")
        && !r.body["messages"].empty()) {
      auto& last = r.body["messages"].back();
      n += last.value("role", "") == "user"
               && content_of(last).find(text) != std::string::npos
             ? 1
             : 0;
    }
  return n;
}

/// Requests that carry a tool result last: a tool ran before each.
int after_tools(const fake_llm& llm) {
  int n = 0;
  for (auto& r : llm.requests())
    if (r.body.is_object() && r.body.contains("messages")
        && !r.body["messages"].empty())
      n += r.body["messages"].back().value("role", "") == "tool" ? 1 : 0;
  return n;
}

/// The model: a message containing "run the tool" gets an exec call that
/// appends a line to `count`, a tool result gets `after_tool` (a plain
/// "done" unless set), anything else the echo.
void script(fake_llm& llm, const fs::path& count,
            std::function<fake_response()> after_tool = nullptr) {
  llm.set_responder([count, after_tool](const json& body) {
    auto& last = body["messages"].back();
    if (last.value("role", "") == "tool")
      return after_tool ? after_tool() : text("done");
    if (content_of(last).find("run the tool") != std::string::npos)
      return tool_calls({call(
        "t1", "exec",
        json{{"command", "echo ran >> '" + count.string() + "'"}})});
    return fake_llm::echo(body);
  });
}

std::vector<std::string> roles(const crash_home& h, const std::string& key) {
  std::vector<std::string> out;
  for (auto& m : session_messages(h.loaded(), key))
    out.push_back(m.value("role", ""));
  return out;
}

/// Starts the gateway, answers one turn of "api:gate" (its session is
/// loaded then), blocks that session's store shard and sends `text`: the
/// model is asked about it while its append cannot have happened.
struct held_append {
  crash_home& h;
  fake_llm& llm;
  child_process gw;
  store_blocker blocker;
  std::future<api_answer> blocked_call, reply;

  held_append(crash_home& home, fake_llm& l, const std::string& text)
    : h(home), llm(l), gw(h.start_ready()),
      blocker(sessions_dir(h) + "/"
              + session_file_name("api:" + same_shard_id("api:gate"))) {
    auto first = ask(h, "gate", "hello").get();
    REQUIRE(first.body.find("echo: hello") != std::string::npos);
    blocked_call = ask(h, same_shard_id("api:gate"), "blocked");
    REQUIRE(eventually([&] { return blocker.held(); },
                       std::chrono::seconds(10)));
    reply = ask(h, "gate", text);
    // Asked while the store cannot have written the message: before this
    // change the model call waited for the append, and this timed out.
    REQUIRE(wait_model_saw(llm, {text}, std::chrono::seconds(10)));
    CHECK(occurrences(h.user_texts("api:gate"), text) == 0);
  }
};

} // namespace

TEST_CASE("user message: the model is asked while it is written and its "
          "tool calls wait for it") {
  fake_llm llm;
  crash_home h{llm, json::object()};
  auto count = h.home.dir / "ws" / "count.txt";
  script(llm, count);
  held_append run{h, llm, "second: run the tool"};
  // The model asked for the tool; it must not run before the message is
  // durable (without the hold it runs at once and the model is asked again).
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CHECK(!fs::exists(count));
  CHECK(after_tools(llm) == 0);
  run.blocker.release();
  auto answer = run.reply.get();
  CHECK(answer.status == 200);
  CHECK(answer.body.find("done") != std::string::npos);
  CHECK(lines_in(count) == 1);
  CHECK(h.user_texts("api:gate")
        == std::vector<std::string>{"hello", "second: run the tool"});
  CHECK(roles(h, "api:gate")
        == std::vector<std::string>{"user", "assistant", "user", "assistant",
                                    "tool", "assistant"});
  run.blocked_call.get();
  run.gw.signal(SIGTERM);
  CHECK(run.gw.wait(std::chrono::seconds(30)) == 0);
}

TEST_CASE("crash: kill -9 while the user's message waits to be written and "
          "the model's tool call waits for it") {
  fake_llm llm;
  crash_home h{llm, json::object()};
  auto count = h.home.dir / "ws" / "count.txt";
  script(llm, count);
  {
    held_append run{h, llm, "second: run the tool"};
    std::this_thread::sleep_for(std::chrono::seconds(1));
    CHECK(!fs::exists(count));
    run.gw.signal(SIGKILL);
    REQUIRE(run.gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
    run.blocker.release();
  }
  // The inbox gives the message again: the model is asked again, the tool
  // runs now, once.
  auto gw = h.start_ready();
  CHECK(eventually(
    [&] {
      auto msgs = session_messages(h.loaded(), "api:gate");
      return !msgs.empty() && content_of(msgs.back()) == "done";
    },
    std::chrono::seconds(30)));
  CHECK(lines_in(count) == 1);
  CHECK(asked_about(llm, "second: run the tool") == 2);
  CHECK(h.user_texts("api:gate")
        == std::vector<std::string>{"hello", "second: run the tool"});
  CHECK(roles(h, "api:gate")
        == std::vector<std::string>{"user", "assistant", "user", "assistant",
                                    "tool", "assistant"});
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
}

TEST_CASE("crash: kill -9 while the model is held after the user's message "
          "was written and its tool ran") {
  fake_llm llm;
  crash_home h{llm, json::object()};
  auto count = h.home.dir / "ws" / "count.txt";
  std::atomic<bool> restarted{false};
  script(llm, count, [&restarted] {
    return restarted ? text("done") : stalled_answer();
  });
  {
    auto gw = h.start_ready();
    auto reply = ask(h, "gate", "third: run the tool");
    // The tool ran (so the message was durable); the next call stalls.
    REQUIRE(eventually([&] { return after_tools(llm) >= 1; },
                       std::chrono::seconds(20)));
    gw.signal(SIGKILL);
    REQUIRE(gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
    reply.get();
  }
  restarted = true;
  auto gw = h.start_ready();
  // Whether or not the inbox gives it again (its settle may not have been
  // written), it is not run again: kept once, closed, the tool ran once.
  // (/stop loads the session, which closes the cut turn, and writes nothing.)
  CHECK(ask(h, "gate", "/stop").get().status == 200);
  CHECK(eventually([&] { return h.gauge("inbox_live") == 0; },
                   std::chrono::seconds(20)));
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
  CHECK(h.user_texts("api:gate")
        == std::vector<std::string>{"third: run the tool"});
  auto msgs = session_messages(h.loaded(), "api:gate");
  REQUIRE(msgs.size() == 2);
  CHECK(content_of(msgs.back()) == interrupted_turn_note);
  CHECK(lines_in(count) == 1);
  CHECK(asked_about(llm, "third: run the tool") == 1);
}

TEST_CASE("user message: an append that fails after the model answered ends "
          "the turn with the error and a valid transcript") {
  fake_llm llm;
  crash_home h{llm, json::object()};
  auto count = h.home.dir / "ws" / "count.txt";
  script(llm, count);
  auto file = [&] {
    return fs::path(sessions_dir(h)) / session_file_name("api:gate");
  };
  {
    // A long first answer, so the file is large next to a 1 KiB step.
    llm.push(text(std::string(100000, 'x')));
    auto gw = h.start_ready();
    CHECK(ask(h, "gate", "hello").get().status == 200);
    gw.signal(SIGTERM);
    REQUIRE(gw.wait(std::chrono::seconds(30)) == 0);
  }
  // The next start may not write past the file's next KiB (as a full
  // disk): the user's long line does not fit, the other files do.
  auto blocks = fs::file_size(file()) / 1024 + 1;
  std::string long_text = "full: run the tool " + std::string(2000, 'y');
  {
    child_process gw{{"/bin/bash", "-c",
                      "trap '' XFSZ; ulimit -f " + std::to_string(blocks)
                        + "; exec \"$0\" gateway -c \"$1\"",
                      nanobot_binary(), h.config},
                     h.home.dir.string()};
    REQUIRE(gw.wait_for_log("gateway ready", std::chrono::seconds(20)));
    // Loads the session without writing to it.
    CHECK(ask(h, "gate", "/stop").get().status == 200);
    store_blocker blocker{sessions_dir(h) + "/"
                          + session_file_name(
                            "api:" + same_shard_id("api:gate"))};
    auto blocked_call = ask(h, same_shard_id("api:gate"), "blocked");
    REQUIRE(eventually([&] { return blocker.held(); },
                       std::chrono::seconds(10)));
    auto reply = ask(h, "gate", long_text);
    REQUIRE(wait_model_saw(llm, {"full: run the tool"},
                           std::chrono::seconds(10)));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    blocker.release();
    auto answer = reply.get();
    INFO(answer.body);
    CHECK(answer.status == 502);
    CHECK(answer.body.find("could not save your message")
          != std::string::npos);
    CHECK(!fs::exists(count)); // the held tool call never ran
    blocked_call.get();
    gw.signal(SIGTERM);
    CHECK(gw.wait(std::chrono::seconds(30)) == 0);
  }
  // Without the limit: the file reads (the cut line skipped) and the chat
  // goes on from it.
  auto gw = h.start_ready();
  auto after = ask(h, "gate", "after").get();
  CHECK(after.body.find("echo: after") != std::string::npos);
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
  CHECK(h.user_texts("api:gate") == std::vector<std::string>{"hello", "after"});
  CHECK(roles(h, "api:gate")
        == std::vector<std::string>{"user", "assistant", "user", "assistant"});
  CHECK(!fs::exists(count));
}
