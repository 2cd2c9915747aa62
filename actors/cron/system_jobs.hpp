// The original's protected system jobs in one agent's cron store: "dream"
// (memory consolidation) and "heartbeat". Each agent's cron registers them
// from that agent's view of the settings and runs them on that agent's
// workspace, memory and heartbeat. They are never model turns in a session
// and never pass through the inbox (there is no chat message to journal).
#pragma once

#include <functional>
#include <string>

#include "actors/cron/cron.hpp"
#include "config/settings.hpp"

namespace nb {

/// The system jobs the original registers for `cfg` (an agent's view:
/// settings::for_agent) — dream and heartbeat when enabled — and the ids it
/// removes when disabled.
void plan_system_jobs(const settings& cfg, cron_config& out);

/// Runs one due system job of this cron's agent: "heartbeat" asks its
/// heartbeat actor for a beat, "dream" runs a Dream worker on its
/// workspace. `done` gets what happened (called later, from the reply).
void run_system_job(cron_pointer self, const cron::job& job,
                    std::function<void(std::string)> done);

} // namespace nb
