// The WebUI API's runner: calls answered in the order they came, each on a
// thread of its own (named nb.ws-api) that is gone once the call is, an
// exception or an overrun answered with 500 naming it, and the calls after
// it still run.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <pthread.h>
#include <stdexcept>
#include <thread>
#include <vector>

#include <caf/scoped_actor.hpp>

#include "actors/channels/websocket/ws_api_runner.hpp"
#include "tests/support/system_fixture.hpp"

using namespace std::chrono_literals;
using nb::api_call;
using nb::api_reply;

namespace {

/// Threads of this process named `name` right now.
int threads_named(const std::string& name) {
  int n = 0;
  for (auto& t : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm{t.path() / "comm"};
    std::string line;
    std::getline(comm, line);
    n += line == name;
  }
  return n;
}

api_call call_named(uint64_t id, const std::string& name) {
  api_call c;
  c.id = id;
  c.method = "GET";
  c.name = name;
  return c;
}

} // namespace

TEST_CASE("the WebUI API runner answers in order, off the caller's thread, "
          "and keeps no thread when idle") {
  nb::test::system_fixture f;
  std::mutex mu;
  std::vector<std::string> ran;
  std::vector<std::string> thread_names;
  auto runner = nb::ws::spawn_api_runner(f.sys, [&](const api_call& c) {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    if (c.name == "slow")
      std::this_thread::sleep_for(100ms); // the next must still wait
    if (c.name == "boom")
      throw std::runtime_error("the disk is full");
    std::lock_guard<std::mutex> lock{mu};
    ran.push_back(c.name);
    thread_names.push_back(name);
    return api_reply{200, "{\"name\":\"" + c.name + "\"}"};
  });
  caf::scoped_actor self{f.sys};
  // Five calls at once, without waiting for each answer.
  const char* names[] = {"slow", "a", "boom", "b", "c"};
  for (uint64_t i = 0; i < 5; ++i)
    self->send(runner, call_named(i + 1, names[i]));
  std::vector<api_reply> answers;
  for (int i = 0; i < 5; ++i)
    self->receive([&](api_reply& r) { answers.push_back(r); },
                  caf::after(10s) >> [&] { FAIL("no answer"); });
  REQUIRE(answers.size() == 5);
  CHECK(answers[0].body == "{\"name\":\"slow\"}");
  CHECK(answers[1].body == "{\"name\":\"a\"}");
  CHECK(answers[2].status == 500);
  CHECK(answers[2].body.find("boom") != std::string::npos);
  CHECK(answers[2].body.find("the disk is full") != std::string::npos);
  CHECK(answers[3].body == "{\"name\":\"b\"}");
  CHECK(answers[4].body == "{\"name\":\"c\"}");
  CHECK(ran == std::vector<std::string>{"slow", "a", "b", "c"});
  for (auto& n : thread_names)
    CHECK(n == "nb.ws-api");
  // Each call's thread ends with it.
  bool idle = false;
  for (int i = 0; i < 500 && !idle; ++i) {
    idle = threads_named("nb.ws-api") == 0;
    if (!idle)
      std::this_thread::sleep_for(10ms);
  }
  CHECK(idle);
  self->send_exit(runner, caf::exit_reason::user_shutdown);
}

TEST_CASE("a WebUI API call over its time limit is answered with 500 and "
          "the next one runs") {
  nb::test::system_fixture f;
  std::atomic<bool> release{false};
  auto runner = nb::ws::spawn_api_runner(
    f.sys,
    [&](const api_call& c) {
      if (c.name == "stuck")
        while (!release)
          std::this_thread::sleep_for(10ms);
      return api_reply{200, c.name};
    },
    1s);
  caf::scoped_actor self{f.sys};
  self->send(runner, call_named(1, "stuck"));
  self->send(runner, call_named(2, "next"));
  std::vector<api_reply> answers;
  for (int i = 0; i < 2; ++i)
    self->receive([&](api_reply& r) { answers.push_back(r); },
                  caf::after(10s) >> [&] { FAIL("no answer"); });
  release = true;
  REQUIRE(answers.size() == 2);
  CHECK(answers[0].status == 500);
  CHECK(answers[0].body.find("stuck") != std::string::npos);
  CHECK(answers[1].body == "next");
  self->send_exit(runner, caf::exit_reason::user_shutdown);
}
