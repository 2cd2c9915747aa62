// The crash proof every platform runs: a slow message, then five more while
// it runs, kill -9 (or SIGTERM with the model call outlasting the drain) once
// the platform has them acknowledged, restart: all six are stored exactly
// once, in order, and the five queued ones reach the model.
#pragma once

#include <doctest/doctest.h>

#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "tests/crash/crash_home.hpp"

namespace nb::test {

/// How a test drives one platform's scripted server.
struct platform_driver {
  /// A user writes `text` in the chat.
  std::function<void(const std::string& text)> send;
  /// Everything sent so far has been acknowledged to the platform.
  std::function<bool()> all_acknowledged;
  /// Between the kill and the restart (e.g. the platform redelivers).
  std::function<void()> after_kill;
  std::string session_key;
  /// A stored message counts when it contains the text (the platform adds
  /// to it, as Email's subject line does).
  bool match_contains = false;
};

/// How often `text` was stored, as `p` counts.
inline int stored(const platform_driver& p,
                  const std::vector<std::string>& texts,
                  const std::string& text) {
  if (!p.match_contains)
    return occurrences(texts, text);
  int n = 0;
  for (auto& t : texts)
    n += t.find(text) != std::string::npos ? 1 : 0;
  return n;
}

inline const std::vector<std::string>& queued_texts() {
  static const std::vector<std::string> texts{
    "queued one", "queued two", "queued three", "queued four", "queued five"};
  return texts;
}

/// How the first gateway ends, one doctest subcase each: kill -9, or a
/// SIGTERM whose drain (2 s) runs out while the slow model call still stalls.
inline int stop_signal_subcase() {
  int sig = SIGKILL;
  SUBCASE("kill -9") { sig = SIGKILL; }
  SUBCASE("SIGTERM with a model call longer than the drain") { sig = SIGTERM; }
  return sig;
}

inline void slow_then_five_then_kill(crash_home& h, fake_llm& llm,
                                     platform_driver& p,
                                     int stop_signal = SIGKILL) {
  auto& queued = queued_texts();
  llm.push(stalled_answer());
  {
    auto gw = h.start_ready();
    INFO("the first gateway's log:\n" << gw.err());
    p.send("the slow one");
    REQUIRE(eventually([&] { return llm.request_count() >= 1; },
                       std::chrono::seconds(20)));
    for (auto& t : queued)
      p.send(t);
    // The platform has them acknowledged: from here on they are ours.
    REQUIRE(eventually(p.all_acknowledged, std::chrono::seconds(20)));
    gw.signal(stop_signal);
    if (stop_signal == SIGKILL) {
      REQUIRE(gw.wait(std::chrono::seconds(10)) == 128 + SIGKILL);
    } else {
      // The drain (2 s) runs out, the call is cancelled, a clean exit.
      REQUIRE(gw.wait(std::chrono::seconds(20)) == 0);
    }
  }
  if (p.after_kill)
    p.after_kill();
  auto gw = h.start_ready();
  CHECK(wait_model_saw(llm, queued, std::chrono::seconds(30)));
  // Every turn ends; then a clean stop and the transcript.
  CHECK(eventually(
    [&] { return stored(p, h.user_texts(p.session_key), queued.back()) >= 1
                 && p.all_acknowledged(); },
    std::chrono::seconds(30)));
  gw.signal(SIGTERM);
  CHECK(gw.wait(std::chrono::seconds(30)) == 0);
  auto texts = h.user_texts(p.session_key);
  std::vector<std::string> expected{"the slow one"};
  expected.insert(expected.end(), queued.begin(), queued.end());
  for (auto& t : expected)
    CHECK_MESSAGE(stored(p, texts, t) == 1, t);
  std::vector<std::string> order;
  for (auto& t : texts)
    for (auto& e : expected)
      if (stored(p, {t}, e) > 0)
        order.push_back(e);
  CHECK(order == expected);
}

} // namespace nb::test
