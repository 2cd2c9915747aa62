// The WebSocket channel's network side (Boost.Beast on its own thread): the
// WebSocket endpoint, the WebUI's static files and its JSON API, on one
// port. Knows nothing about actors; the channel actor plugs in hooks.
// The API's blocking work is not done here: each call goes to the channel
// (hooks.api) and comes back with answer_api.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "messages/webui_api.hpp"

namespace nb::ws {

struct server_config {
  std::string host = "127.0.0.1";
  uint16_t port = 8765; ///< 0: any free port
  std::string path = "/"; ///< the WebSocket endpoint
  std::string token;      ///< "": no token needed
  std::string webui_dir;  ///< "": no WebUI
  /// Largest client message; files go by upload, not inside a message.
  size_t max_message_bytes = 1048576;
  /// Outgoing bytes waiting for one connection: a client that stops
  /// reading is dropped past this instead of growing the queue without end.
  size_t max_queued_bytes = 8u << 20;
  /// Agents a client may pick with agent= (a binding for this channel
  /// names them); the WebUI shows them in its agent picker.
  std::vector<std::string> agents;
};

struct server_hooks {
  /// A client message for a chat (io thread; must not block). `agent` is
  /// the connect URL's agent= ("" = none): the channel manager honours it
  /// only where a binding for this channel names that agent. `cli_apps`:
  /// the apps the message attached (a JSON array's text, "" = none).
  std::function<void(const std::string& client, const std::string& chat,
                     const std::string& text, const std::string& agent,
                     const std::string& cli_apps)>
    on_message;
  /// A delivery finished: how many connections took every frame of it
  /// (io thread; must not block).
  std::function<void(uint64_t id, size_t delivered)> on_written;
  /// /api/<name> once the caller passed the token and Origin checks (io
  /// thread; must not block): the answer comes back through answer_api
  /// with the call's id. Unset: every call gets 404.
  std::function<void(api_call call)> api;
  /// A connection attached to an existing chat (io thread; must not
  /// block): the chat's goal strip and run state are sent again. `client`
  /// and `agent` as for on_message: they pick the chat's agent.
  std::function<void(const std::string& client, const std::string& chat,
                     const std::string& agent)>
    on_attached;
  /// Whether a client id may connect (io thread; must not block).
  std::function<bool(const std::string& client)> allowed;
};

class server {
public:
  /// Binds and starts serving; throws std::runtime_error naming the address
  /// when it cannot listen.
  server(server_config cfg, server_hooks hooks);
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Closes every connection and joins the threads. Idempotent.
  void stop();

  uint16_t port() const;

  /// Sends `frames` to every connection attached to `chat`, then calls
  /// on_written(id, n). Thread-safe.
  void deliver(uint64_t id, std::string chat, std::vector<std::string> frames);

  /// Answers API call `id` (from hooks.api); an id no request waits for
  /// any more is ignored. Thread-safe.
  void answer_api(uint64_t id, api_reply reply);

  /// Open WebSocket connections (any thread).
  size_t connections() const;

private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

} // namespace nb::ws
