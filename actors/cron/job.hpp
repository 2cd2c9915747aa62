// A scheduled job as nanobot's <workspace>/cron/jobs.json holds it, and its
// JSON form (camelCase written; snake_case and numeric strings accepted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/cron/schedule.hpp"

namespace nb::cron {

/// Runs kept per job (oldest dropped first).
inline constexpr size_t run_history_cap = 20;

struct run_record {
  int64_t run_at_ms = 0;
  std::string status; ///< ok, error, skipped
  int64_t duration_ms = 0;
  std::string error;
};

struct job {
  std::string id;
  std::string name;
  bool enabled = true;
  cron::schedule schedule;
  // payload
  std::string payload_kind = "agent_turn"; ///< or "system_event"
  std::string message;
  std::string session_key; ///< the session the job runs in
  std::string origin_channel;
  std::string origin_chat_id;
  nlohmann::json origin_metadata = nlohmann::json::object();
  // state
  int64_t next_run_at_ms = 0; ///< 0 = none
  int64_t last_run_at_ms = 0;
  std::string last_status;
  std::string last_error;
  std::vector<run_record> run_history;
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  bool delete_after_run = false;
  /// Payload keys we do not use, kept so a rewrite loses nothing.
  nlohmann::json payload_extra = nlohmann::json::object();
};

nlohmann::json to_json(const job& j);

/// The original's file shapes: a time in ms, or null when unset (0 or less).
nlohmann::json ms_or_null(int64_t v);
/// A text, or null when empty.
nlohmann::json text_or_null(const std::string& s);

/// Reads one job; nullopt with `error` naming the bad key.
std::optional<job> job_from_json(const nlohmann::json& v, std::string* error);

/// Appends a run record, keeping the last run_history_cap.
void add_run(job& j, run_record r);

} // namespace nb::cron
