// The adapters' senders run only while there is something to send
// (actors/channels/kit/sender_slot.hpp), shown on the Telegram adapter
// against the scripted Bot API: the sender's thread ends after its idle
// time, the next message starts a new one, and order holds across
// retirements.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/platforms/telegram_probe.hpp"

using namespace nb;
using namespace nb::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// Telegram sender threads of this process, by id (an earlier test's may
/// still be ending).
std::set<std::string> sender_threads() {
  std::set<std::string> out;
  for (auto& t : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(t.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name == "tg.send")
      out.insert(t.path().filename().string());
  }
  return out;
}

/// Whether a sender thread that was not in `before` runs now.
bool sender_thread_runs(const std::set<std::string>& before) {
  for (auto& t : sender_threads())
    if (!before.count(t))
      return true;
  return false;
}

/// The probe with the sender's idle time set to `idle_s` for its adapter.
struct idle_tg : telegram_probe {
  explicit idle_tg(const char* idle_s) {
    // Read when the adapter starts; later tests set their own.
    ::setenv("NANOBOT_SENDER_IDLE_S", idle_s, 1);
  }

  void start(json extra = json::object()) {
    telegram_probe::start(std::move(extra));
    ::unsetenv("NANOBOT_SENDER_IDLE_S");
  }

  /// Sends `n` numbered replies to chat 7 at once, then waits for every
  /// answer; how many were ok.
  int burst(int from, int n) {
    std::vector<decltype(self->request(adapter, 30s, outbound_msg{}))> rs;
    for (int i = from; i < from + n; ++i)
      rs.push_back(self->request(adapter, 30s,
                                 reply("telegram", "7", std::to_string(i))));
    int ok = 0;
    for (auto& r : rs)
      r.receive([&](caf::ok_atom) { ++ok; }, [&](caf::error&) {});
    return ok;
  }

  /// The texts sendMessage delivered, in order.
  std::vector<std::string> texts() {
    std::vector<std::string> out;
    for (auto& s : api.sent())
      out.push_back(s.value("text", ""));
    return out;
  }
};

std::vector<std::string> numbers(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i)
    out.push_back(std::to_string(i));
  return out;
}

} // namespace

TEST_CASE("an adapter's sender starts with the first message and retires "
          "when idle; a burst after it arrives in order") {
  idle_tg t{"0.2"};
  auto before = sender_threads();
  t.start();
  REQUIRE(t.wait_state("connected"));
  CHECK_FALSE(sender_thread_runs(before)); // nothing sent yet
  CHECK(t.burst(0, 25) == 25);
  CHECK(eventually([&] { return !sender_thread_runs(before); }));
  CHECK(t.burst(25, 25) == 25);
  CHECK(t.texts() == numbers(50));
  CHECK(t.status().sent == 50);
  CHECK(eventually([&] { return !sender_thread_runs(before); }));
}

TEST_CASE("messages that meet a retiring sender wait for it and keep their "
          "order") {
  // An idle time of a millisecond: most messages find the sender retiring
  // or gone, and wait for the old one to end before a new one starts.
  idle_tg t{"0.001"};
  t.start();
  int ok = 0;
  for (int i = 0; i < 50; ++i) {
    ok += t.burst(i, 1);
    std::this_thread::sleep_for(std::chrono::microseconds(300 * (i % 7)));
  }
  CHECK(ok == 50);
  CHECK(t.texts() == numbers(50));
}

TEST_CASE("a new sender still replies to the message it answers") {
  idle_tg t{"0.1"};
  auto before = sender_threads();
  t.start({{"replyToMessage", true}});
  t.api.push_text(555, 555, "first");
  auto in = t.next_inbound();
  REQUIRE(in);
  // The sender that saw the message (none ran yet) is not the one that
  // answers: the new one is shown the chat's newest message first.
  auto asked = json::parse(in->metadata_json)["message_id"];
  CHECK(t.deliver(reply("telegram", "555", "answer")) == "");
  CHECK(eventually([&] { return !sender_thread_runs(before); }));
  CHECK(t.deliver(reply("telegram", "555", "after a while")) == "");
  auto sent = t.api.sent();
  REQUIRE(sent.size() == 2);
  for (auto& s : sent)
    CHECK(s["reply_parameters"]["message_id"] == asked);
}

TEST_CASE("a stream keeps its sender until it ends") {
  idle_tg t{"0.05"};
  auto before = sender_threads();
  t.start();
  CHECK(t.deliver(reply("telegram", "9", "Hel", outbound_kind::delta, "s1"))
        == "");
  // Idle for many idle times: the sender holds the growing message.
  std::this_thread::sleep_for(300ms);
  CHECK(sender_thread_runs(before));
  CHECK(t.deliver(reply("telegram", "9", "lo", outbound_kind::delta, "s1"))
        == "");
  CHECK(t.deliver(reply("telegram", "9", "", outbound_kind::stream_end, "s1"))
        == "");
  auto sent = t.api.sent();
  REQUIRE(sent.size() >= 2);
  CHECK(sent[0]["method"] == "sendMessage");
  for (auto& s : sent)
    CHECK(s["message_id"] == sent[0]["message_id"]);
  CHECK(sent.back()["text"] == "Hello");
  CHECK(eventually([&] { return !sender_thread_runs(before); }));
}
