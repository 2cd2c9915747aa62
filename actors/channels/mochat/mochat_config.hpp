// channels.mochat: the keys the Mochat adapter reads (the original's names
// and defaults).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nb::mochat {

struct mochat_config {
  std::string name = "mochat";
  /// The REST API (and, without socketUrl, the Socket.IO server);
  /// `apiBase` is read as the same key.
  std::string base_url = "https://mochat.io";
  std::string socket_url; ///< "" = base_url
  std::string socket_path = "/socket.io";
  int64_t reconnect_delay_ms = 1000;
  int64_t max_reconnect_delay_ms = 10000;
  int64_t connect_timeout_ms = 10000;
  /// How often "*" lists of sessions and panels are looked up again.
  int64_t refresh_interval_ms = 30000;
  int64_t watch_limit = 100;
  /// The HTTP polling fallback (while the socket cannot be used): how long
  /// Mochat may hold a session's watch call, and the pause after a failed
  /// one.
  int64_t watch_timeout_ms = 25000;
  int64_t retry_delay_ms = 500;
  /// Reconnection attempts in a row before giving up (0 = never give up).
  int64_t max_retry_attempts = 0;
  std::string claw_token; ///< the agent's token (never logged)
  std::string agent_user_id;
  std::vector<std::string> sessions; ///< ids to watch ("*" not included)
  std::vector<std::string> panels;
  bool all_sessions = false; ///< sessions had "*": discover them
  bool all_panels = false;
  bool require_in_groups = false;            ///< mention.requireInGroups
  std::map<std::string, bool> group_mention; ///< groups.<id>.requireMention
  /// "non-mention": a panel message that does not mention the agent waits
  /// (up to reply_delay_ms) and goes with the next mention or alone when
  /// the time is up; "off": every message goes on at once.
  std::string reply_delay_mode = "non-mention";
  int64_t reply_delay_ms = 120000;
};

/// Parses channels.<name>; `error` names every bad key ("" when fine).
mochat_config parse_mochat_config(const std::string& name,
                                  const std::string& raw_json,
                                  std::string& error);

/// The Socket.IO server's base URL (socketUrl, else baseUrl).
std::string socket_base(const mochat_config& cfg);

/// Whether a group message in `panel_id` of `group_id` must mention the
/// agent: groups.<group>, groups.<panel>, groups."*", then
/// mention.requireInGroups.
bool requires_mention(const mochat_config& cfg, const std::string& panel_id,
                      const std::string& group_id);

} // namespace nb::mochat
