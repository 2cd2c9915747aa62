// One actor per session key: owns that conversation's transcript and runs
// its turns strictly one after another through the seven-state machine.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "actors/session/commands.hpp"
#include "actors/session/prompt.hpp"
#include "actors/session/turn_machine.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

/// What a session needs from the configuration, fixed at spawn.
struct session_config {
  std::string model;
  int32_t max_tokens = 0;
  int32_t context_window_tokens = 65536;
  double temperature = -1;
  int32_t max_iterations = 20;
  std::string workspace; ///< absolute
  std::chrono::seconds model_timeout{1260};
  std::chrono::seconds tool_timeout{900};
  std::chrono::seconds store_timeout{60};
  std::chrono::seconds idle{600}; ///< offer to quit after this long unused
  size_t replay_limit = 200;      ///< messages replayed to the model at most
  int64_t started_at_us = 0;      ///< process start, for /status uptime
};

session_config make_session_config(const settings& cfg);

struct session_state {
  session_state() = default;
  static inline const char* name = "session";

  std::string key;
  session_config cfg;
  session_services svc;
  router_actor router;
  actor_meter meter;
  std::shared_ptr<spdlog::logger> log;
  system_prompt_cache prompt;

  bool loaded = false;                ///< transcript read from disk
  std::vector<nlohmann::json> transcript;
  int64_t received = 0;               ///< inbound messages seen
  int turn_number = 0;
  std::string model;                  ///< this session's model (/model)
  token_usage last_usage;             ///< of the last finished turn

  /// Messages that arrived while a turn ran, in arrival order: the runner
  /// takes plain ones for injection, the rest start turns afterwards.
  std::deque<inbound_msg> pending;

  // The turn in progress.
  turn_machine machine;
  inbound_msg current;
  bool user_persisted = false;
  nlohmann::json user_content; ///< with images as data URLs (null: text)
  std::string summary;    ///< archived summary of consolidated turns
  std::string summary_at; ///< when the summarised conversation was active
  std::vector<nlohmann::json> to_save; ///< persisted at SAVE
  std::string reply;
  std::string stop_reason;
  bool streamed = false;
  bool delivered_by_tool = false; ///< the message tool answered this chat
  std::string failure; ///< what went wrong, for the user and the log
  runner_actor runner;  ///< the running model loop (null outside RUN)
  bool cancel_requested = false; ///< /stop or /new arrived during the turn
  outbound_sink stopped_by;      ///< who asked for the stop (told apart)
  /// Reply sinks of messages injected into this turn, told the answer too.
  std::vector<outbound_sink> injected_sinks;
};

using session_pointer = session_actor::stateful_pointer<session_state>;

/// Spawned by the router for `key`.
session_actor::behavior_type session_impl(session_pointer self, std::string key,
                                          session_config cfg,
                                          session_services svc,
                                          router_actor router);

// -- the turn, state by state (session_turn.cpp) ----------------------------

/// Enters the machine's current state and starts its work.
void enter_state(session_pointer self);

/// Ends the current state's work with `event` and moves on.
void fire(session_pointer self, turn_event event);

/// Ends the current state's work with a failure the user will be told about.
void fail(session_pointer self, std::string what);

/// Back to accepting messages (session.cpp).
void turn_finished(session_pointer self);

/// Sends `msg` to the turn's reply sink, or to the outbox.
void deliver(session_pointer self, outbound_msg msg);

/// Sends `msg` to `in`'s reply sink, or to the outbox.
void deliver_to(session_pointer self, const inbound_msg& in, outbound_msg msg);

/// Builds what a slash command may see of this session.
command_context command_context_for(session_pointer self);

/// Cancels the running turn: its runner stops with the work done so far.
/// Returns how many tasks were asked to stop.
int32_t cancel_turn(session_pointer self, outbound_sink by);

/// Handles a message that arrived while a turn runs (session_busy.cpp).
void while_busy(session_pointer self, inbound_msg in);

/// A reply to `in` on its channel and chat.
outbound_msg reply_to_msg(session_pointer self, const inbound_msg& in,
                          std::string text, bool is_error);

/// Hands out up to three plain messages waiting for injection.
std::vector<inbound_msg> take_injections(session_pointer self);

/// Steady-clock microseconds.
int64_t now_us();

} // namespace nb
