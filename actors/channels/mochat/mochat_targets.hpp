// The sessions and panels the Mochat adapter watches: the configured ids,
// those "*" finds over REST, and each session's cursor (the last event seq
// handed on), kept in a file so a restart asks the server for what came
// after it. Used by the socket loop's thread only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "actors/channels/mochat/mochat_api.hpp"
#include "actors/channels/mochat/mochat_config.hpp"

namespace nb::mochat {

class watch_targets {
public:
  watch_targets(const mochat_config& cfg, std::string cursor_file);

  /// Looks the "*" lists up (/api/claw/sessions/list, /api/claw/groups/get)
  /// and returns the ids found that were not known. "" or why it failed;
  /// `bad_token` when Mochat refused the token.
  std::string refresh_sessions(rest_api& api, std::vector<std::string>& fresh,
                               bool& bad_token);
  std::string refresh_panels(rest_api& api, std::vector<std::string>& fresh,
                             bool& bad_token);

  const std::set<std::string>& sessions() const { return sessions_; }
  const std::set<std::string>& panels() const { return panels_; }
  /// The session a direct conversation (converseId) belongs to ("").
  std::string session_of(const std::string& converse) const;

  /// {session: cursor} for subscribeSessions.
  nlohmann::json cursors() const;
  int64_t cursor(const std::string& session) const;
  /// Moves the cursor forward (never back) and saves the file. "" or the
  /// write error.
  std::string move_cursor(const std::string& session, int64_t cursor);

  /// A session without a stored cursor: its first batch is history, which
  /// is skipped (as the original does). True once, then it is warm.
  bool take_cold(const std::string& session) {
    return cold_.erase(session) > 0;
  }
  bool cold(const std::string& session) const {
    return cold_.count(session) > 0;
  }

private:
  void load(const std::string& name);

  std::string cursor_file_;
  std::set<std::string> sessions_, panels_, cold_;
  std::map<std::string, int64_t> cursors_;
  std::map<std::string, std::string> session_of_converse_;
};

} // namespace nb::mochat
