// A scripted Mochat: the Socket.IO v4 server (Engine.IO WebSocket transport,
// JSON encoding; open packet, pings every pingInterval, CONNECT with the
// auth token checked, CONNECT_ERROR for a wrong one) with the claw events
// (claw.session.events with a per-session seq log, claw.panel.events,
// notify:chat.*), each sent asking for an ack; subscribeSessions answered
// with what came after the client's cursors; unacknowledged panel events
// sent again on the next connection; and the REST API (X-Claw-Token):
// sessions/send, groups/panels/send, sessions/list, groups/get, and the
// polling endpoints: sessions/watch (a long poll on the session's log from
// the client's cursor) and groups/panels/messages (the panel's latest
// messages, newest first).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb::test {

class fake_mochat {
public:
  static constexpr const char* token = "claw-test-token";
  static constexpr const char* agent = "agent-1";

  /// `ping_interval_ms`/`ping_timeout_ms` go into the open packet.
  explicit fake_mochat(int ping_interval_ms = 1000, int ping_timeout_ms = 1000);
  ~fake_mochat();

  /// "http://127.0.0.1:<port>": the baseUrl (REST).
  std::string base_url() const;
  /// "http://127.0.0.1:<port>": the socketUrl (Socket.IO).
  std::string socket_url() const;

  /// Appends a message.add to `session`'s log (its seq counts up) and
  /// sends it as claw.session.events when a client subscribed to it.
  void push_session(const std::string& session, const std::string& author,
                    const std::string& text, const std::string& message_id);
  /// Sends a message.add in `panel` of `group` as claw.panel.events (kept
  /// until acknowledged; sent again on the next connection otherwise) and
  /// adds it to the panel's messages. `mention` puts the agent in
  /// meta.mentions; `created_at` (ISO 8601) is its time, "" = now.
  void push_panel(const std::string& panel, const std::string& group,
                  const std::string& author, const std::string& text,
                  const std::string& message_id, bool mention = false,
                  const std::string& created_at = "");
  /// Sends an event as it is, asking for an ack.
  void push_event(const std::string& name, const nlohmann::json& payload);
  /// Sends a text frame as it is (malformed frames).
  void push_raw(const std::string& text);

  /// Drops the connection without a close frame.
  void drop();
  /// Refuses (HTTP 503) every Socket.IO handshake while on, dropping the
  /// connection there is: the client must poll over HTTP.
  void refuse_socket(bool on);
  /// While on, takes each new WebSocket and says nothing on it (no
  /// Engine.IO open packet): a socket server that hangs.
  void silent_socket(bool on);
  /// Silent sockets held open right now (the client still waiting), and
  /// a wait for `n` of them.
  int silent_sockets() const;
  bool wait_silent_sockets(int n, std::chrono::milliseconds t) const;
  /// Answers the polling endpoints 503 while on.
  void fail_polls(bool on);
  /// Stops (or resumes) sending pings: the client must notice.
  void stop_pings(bool on);
  /// The next `n` sends are answered 429 with Retry-After: 1.
  void limit_sends(int n);
  /// The next `n` session watches are answered 429 with Retry-After: 1;
  /// how many were.
  void limit_watches(int n);
  int limited_watches() const;
  /// A watch that only asks where a session stands (timeoutMs 0) is
  /// answered `d` late, as a busy server does: what is posted meanwhile
  /// comes in that answer.
  void slow_instant_watches(std::chrono::milliseconds d);

  int connections() const;
  bool wait_connections(int n, std::chrono::milliseconds t) const;
  int refused() const; ///< CONNECTs refused for a wrong token
  int pongs() const;
  /// The ack ids of the events acknowledged so far, and how many.
  size_t acked() const;
  bool wait_acked(size_t n, std::chrono::milliseconds t) const;
  /// subscribeSessions payloads received, in order.
  std::vector<nlohmann::json> subscriptions() const;
  /// Accepted sends: {"path", "sessionId"/"panelId", "groupId", "content"}.
  std::vector<nlohmann::json> sends() const;
  int send_calls() const;
  bool wait_sends(size_t n, std::chrono::milliseconds t) const;
  /// What the handshakes asked for ("/socket.io/?EIO=4&transport=...").
  std::vector<std::string> targets() const;
  /// Bodies of sessions/watch calls (as received) and of
  /// groups/panels/messages calls, in order.
  std::vector<nlohmann::json> watches() const;
  std::vector<nlohmann::json> panel_reads() const;
  /// Waits until at least `watches` watch calls and `panel_reads` panel
  /// reads came in.
  bool wait_polls(size_t watches, size_t panel_reads,
                  std::chrono::milliseconds t) const;
  /// Waits until `n` session watches are held at once (long polls waiting
  /// for news together; a watch with timeoutMs 0 is no long poll).
  bool wait_held_watches(int n, std::chrono::milliseconds t) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
