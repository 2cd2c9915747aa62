// Every message type survives CAF's binary serializer, so any message can
// cross a process boundary.
#include <doctest/doctest.h>

#include <utility>

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "messages/type_ids.hpp"

namespace {

using namespace nb;

// A filled-in value per type. The generic overload is deleted, so adding a
// type to the block without a sample here fails to compile.
template <class T>
T sample(caf::actor_system&) = delete;

template <> outbound_kind sample(caf::actor_system&) { return outbound_kind::delta; }
template <> turn_state sample(caf::actor_system&) { return turn_state::respond; }
template <> turn_event sample(caf::actor_system&) { return turn_event::shortcut; }
template <> errc sample(caf::actor_system&) { return errc::store_failed; }

outbound_sink sink_actor(caf::actor_system& sys); // below: a real actor

template <> tool_call sample(caf::actor_system&) {
  return {"call_1", "read_file", R"({"path":"a.txt"})"};
}
template <> token_usage sample(caf::actor_system&) { return {10, 20, 30, 4, true}; }
template <> state_trace sample(caf::actor_system&) {
  return {turn_state::run, turn_event::fail, 1234};
}
template <> tool_spec sample(caf::actor_system&) {
  return {"list_dir", "Lists a directory", R"({"type":"object"})", true, false};
}
template <> std::vector<tool_spec> sample(caf::actor_system& sys) {
  return {sample<tool_spec>(sys), {"exec", "Runs", "{}", false, true}};
}
template <> tool_request sample(caf::actor_system& sys) {
  return {"cli:direct", sample<tool_call>(sys), "telegram", "42", true,
          sink_actor(sys),
          caf::actor_cast<caf::actor>(sink_actor(sys)),
          R"({"model":"m"})"};
}
template <> tool_result sample(caf::actor_system&) {
  return {"call_1", "read_file", "1| hello", true, 5, 9, true};
}
template <> tool_catalog sample(caf::actor_system& sys) {
  return {7, false,
          std::make_shared<const std::vector<tool_spec>>(
            sample<std::vector<tool_spec>>(sys))};
}
template <> cancel_tools sample(caf::actor_system&) {
  return {"telegram:42", {"call_1", "call_2"}};
}

// Serializing a handle puts its actor into the registry (so that other nodes
// can reach it), which keeps it alive: every sample actor is stopped at the end.
std::vector<caf::actor> spawned;

template <class Handle>
Handle remember(Handle h) {
  spawned.push_back(caf::actor_cast<caf::actor>(h));
  return h;
}

// Handles: a real actor, so the serializer must carry its address.
outbound_sink sink_actor(caf::actor_system& sys) {
  return remember(sys.spawn([]() -> outbound_sink::behavior_type {
    return {[](const outbound_msg&) {}};
  }));
}

template <> outbound_sink sample(caf::actor_system& sys) { return sink_actor(sys); }
template <> outbound_msg sample(caf::actor_system&) {
  return {"telegram", "42", "telegram:42", outbound_kind::progress, "hi",
          "s1", true, R"({"a":1})"};
}
template <> inbound_msg sample(caf::actor_system& sys) {
  return {"api", "u1", "default", "hello", {"/tmp/a.png"}, R"({"x":true})",
          "api:x", true, sink_actor(sys), "a1b2c3d4.17"};
}
template <> std::vector<inbound_msg> sample(caf::actor_system& sys) {
  return {sample<inbound_msg>(sys)};
}
template <> session_idle sample(caf::actor_system&) { return {"api:x", 12}; }
template <> model_delta sample(caf::actor_system&) {
  return {"r1", R"({"query":"q"})", true, "web_search"};
}
template <> model_retry_notice sample(caf::actor_system&) { return {"r1", "retry in 2s"}; }
template <> model_delta_sink sample(caf::actor_system& sys) {
  return remember(sys.spawn([]() -> model_delta_sink::behavior_type {
    return {[](const model_delta&) {}, [](const model_retry_notice&) {}};
  }));
}
/// A saved Responses conversation: its record shared, one pending message.
conversation_state sample_conversation() {
  return {std::make_shared<const std::string>(
            R"({"kind":"openai_responses","version":1,"payload":{"items":[]}})"),
          {R"({"role":"user","content":"next"})"}};
}

template <> model_request sample(caf::actor_system& sys) {
  return {"r1", "gpt", "[]", "[{}]", 512, 0.2, true, sample<model_delta_sink>(sys),
          "anthropic", "work", "high", true, sample_conversation(), 400000};
}
template <> model_reply sample(caf::actor_system& sys) {
  return {"answer", "thinking", {sample<tool_call>(sys)}, "tool_calls",
          sample<token_usage>(sys), "", 200, 2, 777,
          R"([{"type":"thinking","thinking":"t","signature":"s"}])",
          "backup-model", true, sample_conversation()};
}
template <> model_cancel sample(caf::actor_system&) {
  return {"telegram:42:t1:3"};
}
template <> run_turn sample(caf::actor_system& sys) {
  return {"cli:direct", "cli", "direct", "t1", "m", "[]", 20, 100, 0.1,
          "low", true, sink_actor(sys), true, sink_actor(sys), {"read_file"},
          true, "work", 2, {"family"}, "u7", "fast"};
}
template <> turn_outcome sample(caf::actor_system& sys) {
  return {"done", {R"({"role":"assistant"})"}, "completed",
          sample<token_usage>(sys), 3, 2, true, true, true,
          sample_conversation()};
}
template <> session_load sample(caf::actor_system&) { return {"cli:direct", true}; }
template <> session_snapshot sample(caf::actor_system&) {
  return {"k", true, R"({"a":1})", {R"({"role":"user"})"}, 2, true,
          sample_conversation()};
}
template <> session_append sample(caf::actor_system&) {
  return {"k", {"{}", "{}"}, true, sample_conversation()};
}
template <> session_replace sample(caf::actor_system&) {
  return {"k", "{}", {"{}"}, 3, true, sample_conversation()};
}
template <> actor_sample sample(caf::actor_system&) {
  return {"session", 1, 0, 5, 1, 3, {0, 1, 2}};
}
template <> turn_sample sample(caf::actor_system& sys) {
  return {"completed", {sample<state_trace>(sys)}, 99, "work"};
}
template <> provider_sample sample(caf::actor_system& sys) {
  return {"custom", "m", true, 2, 1000, sample<token_usage>(sys), "work"};
}
template <> tool_sample sample(caf::actor_system&) {
  return {"exec", true, 55, "work"};
}
template <> prompt_request sample(caf::actor_system&) {
  return {"work:telegram:1", "telegram", "older turns", "2026-12-01 10:00"};
}
template <> prompt_reply sample(caf::actor_system&) {
  return {"You are", 3, nullptr}; // made: not sent across processes
}
template <> workspace_append sample(caf::actor_system&) {
  return {"work:telegram:1", "talked about boats", {"likes boats"}};
}
template <> workspace_figures sample(caf::actor_system&) {
  return {12, 2, 200, 2};
}
template <> agent_message sample(caf::actor_system& sys) {
  return {"work", "work:telegram:1", 1, sample<tool_call>(sys)};
}
template <> session_mail sample(caf::actor_system&) {
  return {"work", "work:telegram:1", "kevu", "telegram", "1",
          "work:slack:C2", "peti", "hello", true, 30, 6};
}
template <> gauge_sample sample(caf::actor_system&) { return {"sessions_live", 7}; }

// Interfaces implemented by an actor that ignores everything: only the
// handle's address travels.
template <class Handle>
Handle any_handle(caf::actor_system& sys) {
  auto a = sys.spawn([](caf::event_based_actor*) {
    return caf::behavior{[](caf::message&) {}};
  });
  spawned.push_back(a);
  return caf::actor_cast<Handle>(a);
}
template <> model_delta_sink sample(caf::actor_system& sys);
template <> router_actor sample(caf::actor_system& sys) { return any_handle<router_actor>(sys); }
template <> session_actor sample(caf::actor_system& sys) { return any_handle<session_actor>(sys); }
template <> workspace_actor sample(caf::actor_system& sys) { return any_handle<workspace_actor>(sys); }
template <> runner_actor sample(caf::actor_system& sys) { return any_handle<runner_actor>(sys); }
template <> provider_actor sample(caf::actor_system& sys) { return any_handle<provider_actor>(sys); }
template <> tool_executor_actor sample(caf::actor_system& sys) { return any_handle<tool_executor_actor>(sys); }
template <> tools_actor sample(caf::actor_system& sys) { return any_handle<tools_actor>(sys); }
template <> store_actor sample(caf::actor_system& sys) { return any_handle<store_actor>(sys); }
template <> stats_actor sample(caf::actor_system& sys) { return any_handle<stats_actor>(sys); }
template <> supervisor_actor sample(caf::actor_system& sys) { return any_handle<supervisor_actor>(sys); }
template <> subagents_actor sample(caf::actor_system& sys) {
  return any_handle<subagents_actor>(sys);
}

// -- evaluator (issue 4)
template <> eval_request sample(caf::actor_system&) {
  return {"heartbeat", "check the mail", "2 new mails", true, "m"};
}
template <> eval_verdict sample(caf::actor_system&) {
  return {true, "new mail", true};
}
template <> evaluator_actor sample(caf::actor_system& sys) {
  return any_handle<evaluator_actor>(sys);
}
template <> cron_actor sample(caf::actor_system& sys) {
  return any_handle<cron_actor>(sys);
}
template <> heartbeat_actor sample(caf::actor_system& sys) {
  return any_handle<heartbeat_actor>(sys);
}
template <> session_list sample(caf::actor_system&) { return {5}; }
template <> session_activity sample(caf::actor_system&) {
  return {"telegram:42", 1780308000000, true, "discord:chat-42"};
}
template <> session_listing sample(caf::actor_system& sys) {
  return {{sample<session_activity>(sys)}};
}

template <> inbox_settle_sink sample(caf::actor_system& sys) {
  return any_handle<inbox_settle_sink>(sys);
}
template <> inbox_actor sample(caf::actor_system& sys) {
  return any_handle<inbox_actor>(sys);
}
template <> inbox_record sample(caf::actor_system& sys) {
  return {sample<inbound_msg>(sys)};
}
template <> inbox_receipt sample(caf::actor_system&) {
  return {"a1b2c3d4.17", true};
}
template <> inbox_settle sample(caf::actor_system&) { return {"a1b2c3d4.17"}; }

template <> session_services sample(caf::actor_system& sys) {
  return {sample<store_actor>(sys), sample<provider_actor>(sys),
          sample<tools_actor>(sys), sample<stats_actor>(sys), sink_actor(sys),
          sample<subagents_actor>(sys), sample<inbox_settle_sink>(sys),
          sample<workspace_actor>(sys)};
}
template <> spawn_subagent sample(caf::actor_system& sys) {
  return {"work:telegram:42", "telegram", "42", "m",
          {"call_9", "spawn", R"({"task":"count the files"})"}, "work",
          "/home/u/workspace-work",
          caf::actor_cast<caf::actor>(sample<tools_actor>(sys))};
}
template <> subagent_info sample(caf::actor_system&) {
  return {"0badf00d", "count files", "count the files", "telegram:42",
          1780308000000, true};
}
template <> std::vector<subagent_info> sample(caf::actor_system& sys) {
  return {sample<subagent_info>(sys), {"12345678", "b", "c", "d", 1, false}};
}
template <> inbound_sink sample(caf::actor_system& sys) {
  return any_handle<inbound_sink>(sys);
}

template <> channel_status sample(caf::actor_system&) {
  return {"telegram", "error", "401 Unauthorized", 4, 3, 1};
}
template <> std::vector<channel_status> sample(caf::actor_system& sys) {
  return {sample<channel_status>(sys), {"websocket", "connected", "", 1, 2, 0}};
}
template <> channel_actor sample(caf::actor_system& sys) { return any_handle<channel_actor>(sys); }
template <> channel_manager_actor sample(caf::actor_system& sys) {
  return any_handle<channel_manager_actor>(sys);
}

// -- cluster
template <> node_actor sample(caf::actor_system& sys) { return any_handle<node_actor>(sys); }
template <> cluster_front_actor sample(caf::actor_system& sys) { return any_handle<cluster_front_actor>(sys); }
template <> member_router_actor sample(caf::actor_system& sys) { return any_handle<member_router_actor>(sys); }
template <> session_release sample(caf::actor_system&) { return {"api:chat-7"}; }
template <> node_welcome sample(caf::actor_system& sys) {
  return {"gateway@127.0.0.1:7000", sample<store_actor>(sys),
          sample<tools_actor>(sys), sink_actor(sys),
          sample<inbox_settle_sink>(sys)};
}
template <> node_status sample(caf::actor_system&) {
  return {"agent-1", "agent", "127.0.0.1:7001", false, 1 << 20, 42, 7, 3, 99};
}
template <> std::vector<node_status> sample(caf::actor_system& sys) {
  return {sample<node_status>(sys), {"tools-1", "tools", "127.0.0.1:7002"}};
}
template <> node_join sample(caf::actor_system& sys) {
  return {"agent-1", "agent", "127.0.0.1:7001", sample<node_actor>(sys),
          sample<member_router_actor>(sys), sample<tools_actor>(sys)};
}
template <> node_ready sample(caf::actor_system&) { return {"agent-1"}; }
template <> relay_done sample(caf::actor_system&) { return {"api:chat-7", 12}; }

template <class T>
void check_round_trip(caf::actor_system& sys) {
  T original = sample<T>(sys);
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  auto err = sink(original);
  REQUIRE_MESSAGE(!err, caf::type_name<T>::value);
  T copy{};
  caf::binary_deserializer source{sys, buf};
  err = source(copy);
  REQUIRE_MESSAGE(!err, caf::type_name<T>::value);
  CHECK_MESSAGE(caf::deep_to_string(copy) == caf::deep_to_string(original),
                caf::type_name<T>::value);
  // The printout carries the values, so equal printouts mean equal messages.
  if constexpr (!std::is_enum_v<T>)
    CHECK_MESSAGE(caf::deep_to_string(copy) != caf::deep_to_string(T{}),
                  caf::type_name<T>::value);
}

template <caf::type_id_t... Is>
void check_all(caf::actor_system& sys,
               std::integer_sequence<caf::type_id_t, Is...>) {
  (check_round_trip<
     typename caf::type_by_id<caf::id_block::nb::begin + Is>::type>(sys),
   ...);
}

} // namespace

TEST_CASE("every registered message type survives the binary serializer") {
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  nb::register_messages(cfg);
  caf::actor_system sys{cfg};
  constexpr auto count = caf::id_block::nb::end - caf::id_block::nb::begin;
  static_assert(count >= 30);
  check_all(sys, std::make_integer_sequence<caf::type_id_t, count>{});
  for (auto& a : spawned)
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  spawned.clear();
}

TEST_CASE("session keys default to channel and chat id") {
  nb::inbound_msg in;
  in.channel = "telegram";
  in.chat_id = "42";
  CHECK(nb::session_key(in) == "telegram:42");
  in.session_key_override = "unified:default";
  CHECK(nb::session_key(in) == "unified:default");
}

TEST_CASE("nb errors render with their name") {
  caf::actor_system_config cfg;
  nb::register_messages(cfg);
  caf::actor_system sys{cfg};
  auto err = caf::make_error(nb::errc::invalid_arguments, std::string{"rm_rf"});
  CHECK(sys.render(err).find("invalid_arguments") != std::string::npos);
  CHECK(sys.render(err).find("rm_rf") != std::string::npos);
}
