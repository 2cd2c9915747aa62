// Archiving through the real actor tree against the scripted LLM: a replay
// that no longer fits is summarised into memory/history.jsonl in the
// background (raw when the model call fails), lasting facts reach
// MEMORY.md, /new archives the rest, and every user message is either in
// the unarchived part of the session file or in the history log, once.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <thread>

#include <spdlog/sinks/ringbuffer_sink.h>

#include "actors/common/log.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/store/session_files.hpp"
#include "actors/supervisor/runtime.hpp"
#include "tests/integration/gateway_fixture.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/eventually.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

bool is_archive_request(const json& body) {
  return body["messages"].dump().find("<conversation>") != std::string::npos;
}

/// The scripted summary: one line per user message the archive request
/// shows (so a test can count them), and a lasting fact.
fake_response summary_of(const json& body) {
  auto prompt = body["messages"].back()["content"].get<std::string>();
  std::string out;
  static const std::regex said{R"(USER: (w\d{4}))"};
  for (std::sregex_iterator i{prompt.begin(), prompt.end(), said}, end;
       i != end; ++i)
    out += "- The user said " + (*i)[1].str() + ".\n";
  out += "- [permanent] The user likes tea.";
  return text(out);
}

struct small_gateway : gateway_fixture {
  explicit small_gateway(bool archive_fails, int32_t window = 2500)
    : gateway_fixture([=](settings& cfg, fake_llm& llm) {
        // A small window: a few long turns overflow it.
        cfg.agent.context_window_tokens = window;
        cfg.agent.max_tokens = 300;
        // The echoing model would repeat recalled archives (with their
        // "USER: w0001" lines) into new turns; these tests count those.
        std::ofstream{cfg.config_path}
          << R"({"agents":{"defaults":{"memory":{"recall":false}}}})";
        llm.set_responder([archive_fails](const json& body) {
          if (is_archive_request(body))
            return archive_fails ? error(400, "no summaries today")
                                 : summary_of(body);
          return fake_llm::echo(body);
        });
      }) {
  }

  std::string ws() const { return cfg.workspace_path(); }

  chat_reply say(const std::string& text) { return say_in("mem", text); }

  /// Waits until history.jsonl has at least `n` entries.
  std::vector<history_entry> wait_entries(size_t n) {
    for (int i = 0; i < 1500; ++i) {
      auto all = read_history(ws());
      if (all.size() >= n)
        return all;
      std::this_thread::sleep_for(20ms);
    }
    return read_history(ws());
  }

  /// The session file's archive mark where the original keeps it: the
  /// metadata line's top-level last_consolidated (0 when absent).
  size_t mark() const {
    std::ifstream in{*resolve_sessions_dir(cfg) + "/"
                     + session_file_name("test:mem")};
    std::string first;
    if (!std::getline(in, first))
      return 0;
    auto line = json::parse(first, nullptr, false);
    return line.is_object() ? line.value("last_consolidated", size_t{0}) : 0;
  }

  /// Waits until the session file records a mark of at least `n`.
  size_t wait_mark(size_t n) {
    for (int i = 0; i < 1500 && mark() < n; ++i)
      std::this_thread::sleep_for(20ms);
    return mark();
  }

  std::vector<json> agent_requests() {
    std::vector<json> out;
    for (auto& r : llm.requests())
      if (!is_archive_request(r.body))
        out.push_back(r.body);
    return out;
  }
};

std::string word(int i) { return "w" + std::to_string(1000 + i); }

std::string long_message(int i) {
  std::string out = word(i) + " ";
  while (out.size() < 600)
    out += "filler text ";
  return out;
}

size_t count_in(const std::string& text, const std::string& w) {
  size_t n = 0;
  for (size_t p = text.find(w); p != std::string::npos; p = text.find(w, p + 1))
    ++n;
  return n;
}

size_t count_in(const std::vector<history_entry>& all, const std::string& w) {
  size_t n = 0;
  for (auto& e : all)
    n += count_in(e.content, w);
  return n;
}

/// User messages from `from` on in the session file whose text starts
/// with `w`.
size_t count_user(const std::vector<json>& msgs, size_t from,
                  const std::string& w) {
  size_t n = 0;
  for (size_t i = from; i < msgs.size(); ++i)
    if (msgs[i]["role"] == "user"
        && msgs[i]["content"].get<std::string>().rfind(w, 0) == 0)
      ++n;
  return n;
}

std::string memory_md(const std::string& ws) {
  std::ifstream in{ws + "/memory/MEMORY.md"};
  return {std::istreambuf_iterator<char>(in), {}};
}

} // namespace

TEST_CASE("an overflowing replay is summarised into the history log") {
  small_gateway gw{false};
  for (int i = 0; i < 8; ++i)
    REQUIRE_FALSE(gw.say(long_message(i)).timed_out);
  auto all = gw.wait_entries(1);
  REQUIRE(all.size() >= 1);
  CHECK(all[0].session_key == "test:mem");
  CHECK(all[0].content.find("The user said " + word(0))
        != std::string::npos);
  // The lasting fact went to MEMORY.md, once, under its heading.
  auto memory = memory_md(gw.ws());
  CHECK(memory.find("## From conversations\n") != std::string::npos);
  CHECK(memory.find("- The user likes tea.") != std::string::npos);
  auto mark = gw.wait_mark(1);
  REQUIRE(mark > 0);
  gw.say("and now?");
  auto last = gw.agent_requests().back()["messages"];
  auto system = last[0]["content"].get<std::string>();
  CHECK(system.find("The user said " + word(0)) != std::string::npos);
  // Archived turns are no longer replayed.
  for (size_t i = 1; i < last.size(); ++i)
    CHECK(last[i].dump().find(word(0)) == std::string::npos);
  CHECK(last.back().dump().find("and now?") != std::string::npos);
  // Every user message is once in the log or once in the unarchived part
  // of the file, never both, never neither; the file keeps them all.
  auto msgs = session_messages(gw.cfg, "test:mem");
  CHECK(msgs.size() == 18);
  auto once = [&] {
    all = read_history(gw.ws());
    mark = gw.mark();
    for (int i = 0; i < 8; ++i)
      if (count_in(all, "said " + word(i)) + count_user(msgs, mark, word(i))
          != 1)
        return false;
    return true;
  };
  // 30 s: the archive mark reaches the session file a moment after the
  // history log.
  CHECK(eventually(once, 30s));
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(count_user(msgs, 0, word(i)) == 1);
    CHECK(count_in(all, "said " + word(i)) + count_user(msgs, mark, word(i))
          == 1);
  }
  CHECK(count_in(memory_md(gw.ws()), "The user likes tea.") == 1);
}

TEST_CASE("a failed summary archives raw and new archives the rest once") {
  small_gateway gw{true};
  for (int i = 0; i < 8; ++i)
    REQUIRE_FALSE(gw.say(long_message(i)).timed_out);
  auto all = gw.wait_entries(1);
  REQUIRE(all.size() >= 1);
  CHECK(all[0].content.rfind("[RAW] ", 0) == 0);
  CHECK(all[0].content.find("USER: " + word(0)) != std::string::npos);
  // A raw archive adds no facts.
  CHECK(memory_md(gw.ws()).find("likes tea") == std::string::npos);
  size_t mark = 0;
  auto msgs = session_messages(gw.cfg, "test:mem");
  auto once = [&] {
    all = read_history(gw.ws());
    mark = gw.mark();
    for (int i = 0; i < 8; ++i)
      if (count_in(all, "USER: " + word(i)) + count_user(msgs, mark, word(i))
          != 1)
        return false;
    return true;
  };
  CHECK(eventually(once, 30s));
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(count_in(all, "USER: " + word(i)) + count_user(msgs, mark, word(i))
          == 1);
  }
  CHECK(gw.say("/new").content == "New session started.");
  // The compaction that the last turn started may still be writing its own
  // entry, so /new's archive can be the second entry to arrive: wait until
  // every message has reached the log, then check none arrived twice.
  CHECK(eventually([&] {
    all = read_history(gw.ws());
    for (int i = 0; i < 8; ++i)
      if (count_in(all, "USER: " + word(i)) == 0)
        return false;
    return true;
  }, 30s));
  // After /new every message is in the log exactly once.
  for (int i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(count_in(all, "USER: " + word(i)) == 1);
  }
  CHECK(session_messages(gw.cfg, "test:mem").empty());
  CHECK(gw.mark() == 0);
}

TEST_CASE("new summarises a short chat and starts a fresh one") {
  small_gateway gw{false, 65536};
  for (int i = 0; i < 3; ++i)
    REQUIRE_FALSE(gw.say(word(i) + " is my lucky number").timed_out);
  CHECK(read_history(gw.ws()).empty()); // everything fits: no archiving
  CHECK(gw.say("/new").content == "New session started.");
  auto all = gw.wait_entries(1);
  REQUIRE(all.size() == 1);
  CHECK(all[0].session_key == "test:mem");
  for (int i = 0; i < 3; ++i)
    CHECK(count_in(all, "The user said " + word(i)) == 1);
  CHECK(count_in(memory_md(gw.ws()), "The user likes tea.") == 1);
  CHECK(session_messages(gw.cfg, "test:mem").empty());
  gw.say("hello again");
  // The fresh conversation replays none of the old one.
  auto last = gw.agent_requests().back()["messages"];
  REQUIRE(last.size() == 2);
  CHECK(last[1].dump().find("hello again") != std::string::npos);
  CHECK(last[1].dump().find(word(0)) == std::string::npos);
}

TEST_CASE("a long chat holds only what its replay can reach and the file keeps everything") {
  // The session reports what it drops (debug); a ring sink reads it. Set
  // up before the runtime starts, so no thread logs meanwhile.
  struct session_log {
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> ring
      = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(8192);
    std::shared_ptr<spdlog::logger> lg = nb::log::get("session");
    spdlog::level::level_enum was = lg->level();
    session_log() {
      lg->sinks().push_back(ring);
      lg->set_level(spdlog::level::debug);
    }
    ~session_log() {
      lg->sinks().pop_back();
      lg->set_level(was);
    }
    /// The last "(N held)" the session reported (-1: none).
    long held() const {
      long out = -1;
      static const std::regex re{R"(no longer held in memory \((\d+) held\))"};
      for (auto& line : ring->last_formatted()) {
        std::smatch m;
        if (std::regex_search(line, m, re))
          out = std::stol(m[1].str());
      }
      return out;
    }
  } log;
  small_gateway gw{false};
  constexpr int turns = 160;
  // The first turns' lines as stored early on: every archive mark's rewrite
  // after must keep them as they are (timestamps, the usage and model of
  // each answer), whether it wrote them out from memory or kept them from
  // the file.
  constexpr int early = 5;
  for (int i = 0; i < early; ++i)
    REQUIRE_FALSE(gw.say(long_message(i)).timed_out);
  auto early_lines = session_messages(gw.cfg, "test:mem");
  REQUIRE(early_lines.size() == 2 * early);
  for (int i = early; i < turns; ++i)
    REQUIRE_FALSE(gw.say(long_message(i)).timed_out);
  CHECK(eventually([&] { return gw.mark() >= 200; }, 30s));
  gw.say("one more");
  // Archived messages left memory: what stays is the replay's reach and
  // /history's last 50, not the 320 messages of the chat.
  auto held = log.held();
  CHECK(held > 0);
  CHECK(held < 180);
  // The file still has every message, in order, after the archive marks
  // were written (each a rewrite of the file's metadata line).
  auto msgs = session_messages(gw.cfg, "test:mem");
  REQUIRE(msgs.size() == 2 * turns + 2);
  for (int i = 0; i < turns; ++i) {
    CAPTURE(i);
    CHECK(msgs[2 * i]["content"].get<std::string>().rfind(word(i), 0) == 0);
    CHECK(msgs[2 * i + 1]["usage"]["requests"] == 1);
    CHECK(msgs[2 * i + 1].contains("model"));
  }
  for (size_t i = 0; i < early_lines.size(); ++i) {
    CAPTURE(i);
    CHECK(msgs[i] == early_lines[i]);
  }
  // /status counts them all, /stats adds up every turn's usage, /history
  // shows the last ones.
  auto status = gw.say("/status").content;
  CHECK(status.find(std::to_string(2 * turns + 2) + " messages")
        != std::string::npos);
  auto stats = gw.say("/stats").content;
  CHECK(stats.find("total: " + std::to_string(turns + 1) + " turn(s)")
        != std::string::npos);
  auto history = gw.say("/history 2").content;
  CHECK(history.find("one more") != std::string::npos);
}

TEST_CASE("an archive mark on a file cut short behind the session's back writes the held messages") {
  small_gateway gw{false};
  gw.say(long_message(0));
  gw.say(long_message(1));
  // Someone leaves only the metadata line: the mark's rewrite, which keeps
  // the file's message lines, finds fewer than the session holds.
  auto path = *resolve_sessions_dir(gw.cfg) + "/" + session_file_name("test:mem");
  std::string first;
  {
    std::ifstream in{path};
    REQUIRE(std::getline(in, first));
  }
  std::ofstream{path, std::ios::trunc} << first << "\n";
  constexpr int turns = 8;
  for (int i = 2; i < turns; ++i)
    REQUIRE_FALSE(gw.say(long_message(i)).timed_out);
  // A mark gets written all the same (the next try writes the messages
  // out), and with it every message the session holds, the cut ones too.
  CHECK(gw.wait_mark(1) >= 1);
  CHECK(eventually(
    [&] { return session_messages(gw.cfg, "test:mem").size() == 2 * turns; },
    30s));
  auto msgs = session_messages(gw.cfg, "test:mem");
  REQUIRE(msgs.size() == 2 * turns);
  for (int i = 0; i < turns; ++i) {
    CAPTURE(i);
    CHECK(msgs[2 * i]["content"].get<std::string>().rfind(word(i), 0) == 0);
  }
}
