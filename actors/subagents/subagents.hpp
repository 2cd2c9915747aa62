// Subagents: the manager, one per process. It runs spawn calls as
// background runners with their own context and a restricted tool set,
// caps how many run at once, stops a session's subagents on /stop, and
// announces each result back into the session that asked for it.
//
// One manager per process rather than per session: the concurrency limit
// (agents.defaults.maxConcurrentSubagents) is a process-wide budget of
// model calls and tool lanes, and a subagent outlives its session actor,
// which may go idle and quit while it runs; results come back through the
// router, which brings the session back from disk.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/common/meter.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// What subagents run with, fixed at spawn.
struct subagent_config {
  std::string workspace; ///< absolute
  int32_t max_concurrent = 1;
  bool fail_on_tool_error = true;
  int32_t max_iterations = 15;
  int32_t max_tokens = 0;
  double temperature = -1;
  std::string reasoning_effort; ///< agents.defaults.reasoningEffort
  int64_t context_window_tokens = 65536;
  size_t max_tool_result_chars = 16000;
  std::chrono::seconds model_timeout{1260}; ///< one provider request
  std::chrono::seconds tool_timeout{900};   ///< one tool call
  /// agents.list[].canMessage by agent id: whom send_to_agent may ask.
  std::map<std::string, std::vector<std::string>> can_message;
};

/// How many send_to_agent hops a chain of agents may take.
inline constexpr int32_t max_agent_depth = 3;

/// From agents.defaults; the timeouts are the sessions' own.
subagent_config make_subagent_config(const settings& cfg,
                                     std::chrono::seconds model_timeout,
                                     std::chrono::seconds tool_timeout);

struct subagents_state {
  subagents_state() = default;
  static inline const char* name = "subagents";

  /// One running subagent.
  struct task {
    subagent_info info;
    runner_actor runner;
    tools_actor tools;   ///< the tools its runner calls
    std::string channel; ///< where its result is announced
    std::string chat_id;
    std::string agent; ///< whose session it reports back to
    bool wait = false; ///< the spawn call waits for the result
    std::string call_id;
    caf::typed_response_promise<tool_result> promise;
  };

  subagent_config cfg;
  provider_actor provider;
  tools_actor tools;
  stats_actor stats;
  inbound_sink announce_to; ///< the router (null: results are logged only)
  std::map<std::string, task> running; ///< by id
  /// send_session_message: each source session's sends of the last 60 s.
  std::map<std::string, std::deque<std::chrono::steady_clock::time_point>>
    mail_sent;
  /// (source, target) -> the timer of the reply the source waits for.
  using mail_pair = std::pair<std::string, std::string>;
  std::map<mail_pair, caf::actor> mail_waits;
  std::mt19937_64 rng;
  int64_t started = 0;
  int64_t failed = 0;
  actor_meter meter;
};

using subagents_pointer = subagents_actor::stateful_pointer<subagents_state>;

/// send_to_agent (agent_mail.cpp): asks another agent through the router
/// and answers with its reply.
caf::result<tool_result> ask_agent(subagents_pointer self, agent_message& rq);

/// send_session_message (session_mail.cpp): rate-limits the source and
/// hands the message to the entry; "" once sent, else the error text.
std::string send_session_mail(subagents_pointer self, session_mail& m);

/// The manager. Results are announced once it was given an inbound_sink.
subagents_actor::behavior_type
subagents_impl(subagents_pointer self, subagent_config cfg,
               provider_actor provider, tools_actor tools, stats_actor stats);

} // namespace nb
