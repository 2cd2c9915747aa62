// The evaluator actor: the notification gate between a background result
// and the user. One model call per question; fails to the caller's default.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include <caf/fwd.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/common/meter.hpp"
#include "config/settings.hpp"
#include "messages/interfaces.hpp"

namespace nb {

struct evaluator_config {
  std::string workspace; ///< absolute; holds prompts/evaluator.md
  std::string model;     ///< used when a request names none
  std::chrono::seconds timeout{1260}; ///< one provider call, retries included
};

evaluator_config make_evaluator_config(const settings& cfg);

/// Token usage of the evaluator's calls, by requesting source.
struct evaluator_usage {
  int64_t calls = 0;
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
};

struct evaluator_state {
  evaluator_state() = default;
  static inline const char* name = "evaluator";
  evaluator_config cfg;
  session_services svc; ///< provider and stats are used
  std::map<std::string, evaluator_usage> usage;
  actor_meter meter;
  std::shared_ptr<spdlog::logger> log;
};

using evaluator_pointer = evaluator_actor::stateful_pointer<evaluator_state>;

/// Reads the prompt file on each request (it may change at any time), on a
/// short-lived thread of its own (actors/common/blocking_task.hpp): the
/// evaluator itself lives on the scheduler.
evaluator_actor::behavior_type evaluator_impl(evaluator_pointer self,
                                              evaluator_config cfg,
                                              session_services svc);

/// Spawns an evaluator using svc.provider and svc.stats. Each
/// source's usage is reported to stats as the gauges
/// "usage.evaluator.<source>.{calls,prompt_tokens,completion_tokens,
/// total_tokens}".
evaluator_actor spawn_evaluator(caf::actor_system& sys, const settings& cfg,
                                session_services svc);

} // namespace nb
