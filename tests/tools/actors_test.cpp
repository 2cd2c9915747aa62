// The tool actors: the front answers bad calls, the pool runs the rest
// (side by side, FIFO beyond its size; one session's exclusive calls
// strictly one at a time, in order), a tool_sample is reported per call,
// and the front takes its pool down when it exits.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <caf/all.hpp>

#include "actors/tools/tools_front.hpp"
#include "messages/type_ids.hpp"
#include "tests/tools/fixture.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using nb::test::system_fixture;
using nb::test::has;
using nlohmann::json;
using namespace std::chrono;

namespace {

// Counts tool samples; answers stats_atom with the count and names.
struct sample_counter_state {
  sample_counter_state() = default;
  static inline const char* name = "sample_counter";
  std::vector<std::string> names;
};

stats_actor::behavior_type
sample_counter(stats_actor::stateful_pointer<sample_counter_state> self) {
  return {
    [](const actor_sample&) {},
    [](const turn_sample&) {},
    [](const provider_sample&) {},
    [self](const tool_sample& s) { self->state.names.push_back(s.name); },
    [](const gauge_sample&) {},
    [self](stats_atom, const std::string&) -> std::string {
      std::string out;
      for (auto& n : self->state.names)
        out += n + ";";
      return out;
    },
  };
}


// Built-ins plus a read-only probe that takes 300 ms.
tool_registry slow_registry() {
  settings cfg;
  cfg.tools.browser.enable = false; // its own tests: tests/browser
  auto reg = make_builtin_registry(cfg);
  json schema = {{"type", "object"}, {"properties", json::object()}};
  reg.add({"slow_read", "sleeps", schema.dump(), true, false},
          [](const json&, const tool_context&) -> tool_output {
            std::this_thread::sleep_for(milliseconds(300));
            return {"slept", false};
          });
  return reg;
}

tool_request raw_req(const std::string& session, tool_call call) {
  tool_request r;
  r.session_key = session;
  r.call = std::move(call);
  return r;
}

tool_request req(const std::string& session, const std::string& id,
                 const std::string& name, const json& args) {
  tool_request r;
  r.session_key = session;
  r.call = tool_call{id, name, args.dump()};
  return r;
}

// Sends every request at once and returns the results in request order.
std::vector<tool_result> run_all(caf::actor_system& sys, const tools_actor& t,
                                 const std::vector<tool_request>& reqs) {
  caf::scoped_actor self{sys};
  for (auto& r : reqs)
    self->send(t, r);
  std::vector<tool_result> out(reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i)
    self->receive([&](tool_result& r) {
      for (size_t k = 0; k < reqs.size(); ++k)
        if (reqs[k].call.id == r.call_id)
          out[k] = r;
    },
                  caf::after(seconds(30)) >> [] { FAIL("no tool result"); });
  return out;
}

bool overlap(const tool_result& a, const tool_result& b) {
  return a.started_us < b.finished_us && b.started_us < a.finished_us;
}

} // namespace

TEST_CASE("tools front lists the specs and answers bad calls at once") {
  test::temp_tree t;
  system_fixture f;
  auto cfg = test::settings_for(t.ws);
  cfg.tools.browser.enable = false; // counted without it: its own tests are in tests/browser
  auto front = spawn_tools(f.sys, cfg, stats_actor{});
  caf::scoped_actor self{f.sys};
  self->request(front, seconds(5), list_tools_atom::value)
    .receive(
      [&](std::vector<tool_spec>& specs) {
        // with my, send_session_message, write_stdin, list_exec_sessions,
        // run_cli_app
        REQUIRE(specs.size() == 23);
        CHECK(specs.front().name == "apply_patch");
        CHECK(specs.back().name == "write_stdin");
      },
      [&](caf::error& e) { FAIL(f.sys.render(e)); });
  auto out = run_all(f.sys, front,
                     {req("s", "1", "rm_everything", json::object()),
                      raw_req("s", tool_call{"2", "read_file", "{\"path\": "}),
                      raw_req("s", tool_call{"3", "", "{}"})});
  for (auto& r : out) {
    CHECK(r.is_error);
    CHECK(has(r.content, "[Analyze the error above"));
  }
  CHECK(out[0].name == "rm_everything");
  CHECK(has(out[1].content, "not valid JSON"));
  CHECK(has(out[2].content, "no tool name"));
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}

TEST_CASE("tools front runs read-only calls side by side") {
  test::temp_tree t;
  t.put("ws/a.txt", "alpha\n");
  system_fixture f;
  auto stats = f.sys.spawn(sample_counter);
  auto front = spawn_tools(f.sys, test::settings_for(t.ws), stats,
                           slow_registry());
  auto out = run_all(f.sys, front,
                     {req("s1", "a", "slow_read", json::object()),
                      req("s2", "b", "slow_read", json::object()),
                      req("s1", "c", "read_file", {{"path", "a.txt"}})});
  CHECK(out[0].content == "slept");
  CHECK(out[1].content == "slept");
  CHECK(has(out[2].content, "1| alpha"));
  CHECK(overlap(out[0], out[1]));
  for (auto& r : out)
    CHECK(r.finished_us >= r.started_us);
  caf::scoped_actor self{f.sys};
  self->request(stats, seconds(5), stats_atom::value, std::string{})
    .receive([&](std::string& names) {
      CHECK(names.find("slow_read;") != std::string::npos);
      CHECK(std::count(names.begin(), names.end(), ';') == 3);
    },
             [&](caf::error& e) { FAIL(f.sys.render(e)); });
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(stats, caf::exit_reason::user_shutdown);
}

TEST_CASE("tools pool queues calls beyond its size in arrival order") {
  test::temp_tree t;
  system_fixture f;
  auto cfg = test::settings_for(t.ws);
  cfg.gateway.tool_workers = 1;
  auto front = spawn_tools(f.sys, cfg, stats_actor{}, slow_registry());
  auto out = run_all(f.sys, front,
                     {req("s1", "a", "slow_read", json::object()),
                      req("s2", "b", "slow_read", json::object()),
                      req("s3", "c", "slow_read", json::object())});
  CHECK_FALSE(overlap(out[0], out[1]));
  CHECK_FALSE(overlap(out[1], out[2]));
  CHECK(out[0].finished_us <= out[1].started_us);
  CHECK(out[1].finished_us <= out[2].started_us);
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}

TEST_CASE("tools pool runs one session's exclusive calls one at a time") {
  test::temp_tree t;
  system_fixture f;
  auto front = spawn_tools(f.sys, test::settings_for(t.ws), stats_actor{});
  auto out = run_all(
    f.sys, front,
    {req("s1", "a", "exec", {{"command", "sleep 0.3; echo one"}}),
     req("s1", "b", "exec", {{"command", "sleep 0.3; echo two"}}),
     req("s1", "c", "write_file", {{"path", "w.txt"}, {"content", "x"}})});
  CHECK(has(out[0].content, "one"));
  CHECK(has(out[1].content, "two"));
  CHECK(has(out[2].content, "Successfully wrote 1 characters"));
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t k = i + 1; k < out.size(); ++k) {
      CAPTURE(i);
      CAPTURE(k);
      CHECK_FALSE(overlap(out[i], out[k]));
    }
  // The session's calls keep arrival order.
  CHECK(out[0].finished_us <= out[1].started_us);
  CHECK(out[1].finished_us <= out[2].started_us);
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
}

TEST_CASE("tools front stops a busy pool when it exits") {
  test::temp_tree t;
  system_fixture f;
  auto front = spawn_tools(f.sys, test::settings_for(t.ws), stats_actor{},
                           slow_registry());
  caf::scoped_actor self{f.sys};
  self->monitor(front);
  self->send(front, req("s1", "a", "exec", {{"command", "sleep 0.5"}}));
  self->send(front, req("s1", "b", "slow_read", json::object()));
  std::this_thread::sleep_for(milliseconds(100));
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
  bool down = false;
  self->receive(
    [&](caf::down_msg& dm) {
      down = true;
      CHECK(dm.reason == caf::exit_reason::user_shutdown);
    },
    caf::after(seconds(30)) >> [] {});
  CHECK(down);
  // Gone for good: a later call is refused, not queued.
  bool refused = false;
  self->request(front, seconds(30), req("s1", "c", "list_dir", {{"path", "."}}))
    .receive([](tool_result&) {},
             [&](caf::error& e) {
               refused = e == caf::sec::request_receiver_down;
             });
  CHECK(refused);
  // ~actor_system (fixture) waits for every actor: it returns only if the
  // pool's workers quit after their current call.
}
