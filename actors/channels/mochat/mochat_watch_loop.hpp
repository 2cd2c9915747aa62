// The Mochat watch loop's shape, shared by its two halves: the connection
// and polling loop (mochat_watch.cpp) and the handling of what arrives,
// with the subscriptions, cursors and panel lists (mochat_watch_events.cpp).
// Private to the adapter: start_watch (mochat_watch.hpp) is its face.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/mochat/mochat_api.hpp"
#include "actors/channels/mochat/mochat_config.hpp"
#include "actors/channels/mochat/mochat_poll.hpp"
#include "actors/channels/mochat/mochat_socket_attempt.hpp"
#include "actors/channels/mochat/mochat_sorter.hpp"
#include "actors/channels/mochat/mochat_targets.hpp"
#include "actors/channels/mochat/socketio_client.hpp"
#include "actors/common/log.hpp"

namespace nb::mochat::watch_detail {

using nlohmann::json;
using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

class watch_loop final : public chan::inbound_loop {
public:
  watch_loop(mochat_config cfg, std::string cursor_file,
             chan::adapter_front_actor front);

  ~watch_loop() override;

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  std::string token_error(const std::string& why) const {
    return "channels." + cfg_.name + ".clawToken: refused by Mochat (" + why
           + ")";
  }

  bool polling_works() const { return polling_ok_.value_or(false); }

  /// The socket first; while it cannot be used (between its attempts, and
  /// for good once maxRetryAttempts are spent) HTTP polling, as the
  /// original falls back to.
  void run();

  /// Polls over HTTP until `until` (the next socket attempt). False when
  /// stopping or the token was refused.
  bool poll_until(steady::time_point until);

  /// One round of polling (when it runs): an answer waited for until
  /// `until` (at most 250 ms) and handled, then what the sorter holds due
  /// handed on.
  void poll_round(steady::time_point until);

  /// Opens the socket on the attempt's thread; meanwhile the polls (when
  /// they run) go on. "" when connected, else why not (`refused`: the
  /// server refused the token).
  std::string open_socket(const std::string& url, bool& refused);

  void start_polls();

  /// The socket is back: the polls end, and what they brought in is
  /// handled before the subscriptions ask from the cursors.
  void stop_polls();

  void polling_state(bool ok, const std::string& err);

  /// One answer of the polling endpoints, handled as the socket's events
  /// are; then the thread is told when to ask again.
  void polled(poll_answer& a);

  /// A panel's latest messages. Those from before the adapter started are
  /// history and not answered (one without a readable createdAt counts
  /// as new, as in the original); those handed on before are skipped.
  void panel_read(const std::string& panel, const json& data);

  /// One connection; true when it was established.
  bool connection();

  void subscribe_sessions(const std::vector<std::string>& ids);

  void subscribe_panels(const std::vector<std::string>& ids);

  /// False when a message could not be handed on (nothing acknowledged).
  bool handle(const sio::sio_packet& p);

  /// The answer to one of our emits.
  bool answered(int64_t id, const json& arg);

  /// A watch payload: its messages handed on, then its cursor moved.
  bool watch(const json& payload, target_kind kind, std::optional<int64_t> ack,
             bool& deferred);

  bool notify_message(const json& payload, std::optional<int64_t> ack,
                      bool& deferred);

  bool inbox_append(const json& payload, std::optional<int64_t> ack,
                    bool& deferred);

  bool one_message(const std::string& target, target_kind kind,
                   const json& event, std::optional<int64_t> ack,
                   bool& deferred);

  /// Hands `out` over; once journaled, remembers and acknowledges it.
  bool deliver(ready_batch& out);

  void refresh_targets(bool subscribe_new);

  /// A refused token is fatal; other failures are tried again later.
  void note_refresh(const std::string& err, bool bad_token, const char* what);

  void refresh_sessions(bool subscribe_new);

  void refresh_panels(bool subscribe_new);

  mochat_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  rest_api api_;
  sorter sorter_;
  watch_targets targets_;
  socketio_client client_;
  /// While pending, client_ is the attempt's (interrupt() aside).
  socket_attempt attempt_;
  poller polls_; ///< runs on this loop's thread
  int64_t started_ms_; ///< epoch ms: panel messages before it are history
  /// The last poll's outcome; unset while on the socket.
  std::optional<bool> polling_ok_;
  std::map<int64_t, std::string> pending_; ///< our emits awaiting acks
  int64_t next_id_ = 0;
  std::string last_error_;
  bool fatal_ = false;
  chan::stop_flag stop_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace nb::mochat::watch_detail
