// Browser: the engine behind the browser tool. Owns one Chromium (started
// on the first call), one isolated browser context per session (its own
// cookies and storage), the tabs of each session with the refs of their
// last snapshot, and the request guard (every request any page makes is
// paused by the Fetch domain and checked before it may go out).
// Blocking: it runs on the browser actor's own thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/browser/cdp.hpp"
#include "actors/browser/chromium.hpp"
#include "actors/browser/snapshot.hpp"
#include "actors/tools/ssrf.hpp"
#include "config/settings.hpp"

namespace nb {

/// One tab of a session.
struct browser_tab {
  std::string target_id;
  std::string session_id; ///< CDP flattened session
  std::vector<snapshot_ref> refs; ///< from the last snapshot
};

/// One session's isolated context and its tabs.
struct browser_session {
  std::string context_id;
  std::vector<browser_tab> tabs;
  size_t current = 0;
};

/// What one action produced.
struct browser_outcome {
  std::string text;
  bool is_error = false;
};

class browser_engine {
public:
  using cancel_fn = cdp_connection::cancel_fn;

  browser_engine(browser_settings cfg, ssrf_policy policy,
                 std::string workspace);
  ~browser_engine();

  /// Runs one tool call (`args` validated against the schema) for
  /// `session_key`. Starts Chromium first if it is not running. Never
  /// throws: failures (a crash, /stop, a refused URL) are error outcomes.
  browser_outcome run(const std::string& session_key,
                      const nlohmann::json& args, const cancel_fn& cancel);

  /// Stops Chromium and forgets every session.
  void stop();

  bool running() const {
    return running_;
  }
  int pages_open() const;
  int64_t rss_bytes() const {
    return process_.group_rss_bytes();
  }
  /// Requests the guard refused since the start.
  int64_t blocked_requests() const {
    return blocked_count_;
  }

  // -- used by the actions (page_actions.cpp)
  cdp_connection& cdp() {
    return cdp_;
  }
  const browser_settings& settings() const {
    return cfg_;
  }
  const ssrf_policy& policy() const {
    return policy_;
  }
  const std::string& workspace() const {
    return workspace_;
  }
  std::chrono::milliseconds nav_timeout() const {
    return std::chrono::seconds(cfg_.navigation_timeout_s);
  }
  /// Opens a new tab in `s` (about:blank, guarded) and makes it current.
  browser_tab& new_tab(browser_session& s);
  /// The session's current tab; a fresh one when it has none.
  browser_tab& current_tab(browser_session& s);
  /// Navigates `tab` and waits for the load (or the timeout); throws a
  /// std::runtime_error naming a refused or failed load.
  void navigate(browser_tab& tab, const std::string& url);
  /// Waits up to `settle` for a navigation an action may have started, and
  /// if one did, for its load.
  void settle(browser_tab& tab, std::chrono::milliseconds settle);
  /// The reason the guard refused the last request, "" if none since
  /// forget_blocked().
  const std::string& last_blocked() const {
    return last_blocked_;
  }
  void forget_blocked() {
    last_blocked_.clear();
  }
  /// Closes `s`'s tab `index` (Target.closeTarget).
  void close_tab(browser_session& s, size_t index);

private:
  void start();
  void on_event(const nlohmann::json& ev);
  void on_request_paused(const nlohmann::json& params);
  /// Disarms a target Chromium attached on its own before it runs.
  void on_attached(const nlohmann::json& params);
  browser_session& session_for(const std::string& key);
  /// Adopts tabs the page opened itself (window.open, target=_blank) and
  /// drops closed ones.
  void sync_tabs(browser_session& s);
  void prepare_tab(browser_tab& tab);

  browser_settings cfg_;
  ssrf_policy policy_;
  std::string workspace_;
  chromium_process process_;
  cdp_connection cdp_;
  bool running_ = false;
  std::map<std::string, browser_session> sessions_;
  /// Page sessions whose main frame is loading; load events seen so far.
  std::set<std::string> loading_;
  std::map<std::string, int64_t> loads_;
  /// Loader ids whose document fired "load" (Page.lifecycleEvent), so a
  /// navigation waits for its own document, not an earlier about:blank.
  std::set<std::string> loaded_;
  std::string last_blocked_;
  int64_t blocked_count_ = 0;
};

/// Runs `action` (the validated `args["action"]`) on `tab` of `s`.
/// Throws cdp_error or std::runtime_error (a message for the model).
browser_outcome run_action(browser_engine& eng, browser_session& s,
                           const nlohmann::json& args);

} // namespace nb
