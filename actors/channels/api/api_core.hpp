// Internal to the API server: the connection type and the core that owns
// every connection on the io thread (api_server.cpp: listening, the
// connection caps and stopping; api_conn.cpp: one connection's requests).
#pragma once

#include <atomic>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility> // Boost 1.74 asio uses std::exchange without it
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/logger.h>

#include "actors/channels/api/agent_select.hpp"
#include "actors/channels/api/api_server.hpp"
#include "actors/channels/api/completion.hpp"

namespace nb::api::detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct core;

/// Read buffer kept beyond the header limit between requests.
inline constexpr size_t read_slack = 64 * 1024;
/// A body at least this large has memory trimmed after its answer.
inline constexpr size_t large_body = 64 * 1024;

/// One client connection; lives on the io thread only. Requests are read
/// one at a time and the next is read only once the previous answer is
/// written, so pipelined requests are answered in order.
struct conn : std::enable_shared_from_this<conn> {
  conn(core& owner, tcp::socket s, std::string client);
  ~conn();

  void start();
  /// The server stops: 503 for a waiting request, an error frame for a
  /// stream, a plain close for a connection between requests.
  void shutdown();
  /// Closed to make room for a newer connection of the same client.
  void evict();
  /// Writes a 503 (over the connection cap) and closes.
  void refuse(const std::string& why);
  /// Waiting for (or still reading the header of) a request.
  bool waiting() const { return phase == phase_t::header; }

  core& owner;
  beast::tcp_stream stream;
  std::string client; ///< the peer's address: the unit of the caps
  std::list<std::shared_ptr<conn>>::iterator entry; ///< in core::conns
  bool listed = false; ///< counted in core::conns and per_client

private:
  enum class phase_t { header, body, answering, closing };

  void read_header();
  void on_header(beast::error_code ec);
  std::optional<api_error> check_header() const;
  void read_body();
  void on_body(beast::error_code ec);
  void dispatch();
  void start_completion(completion_request req);
  void on_outbound(uint64_t exchange, outbound_msg m);
  void on_turn_deadline(uint64_t exchange);
  void fail_exchange(const api_error& err);

  void respond(int status, std::string body, bool close_after,
               const char* extra_headers = "");
  void respond_error(const api_error& err, bool close_after);
  void begin_stream();
  void stream_bytes(const std::string& frames);
  void end_stream(const std::string& last_frames);
  void queue(std::string bytes);
  void write_next();
  void exchange_written();
  void end_turn();
  void linger_close();
  void close();

  beast::flat_buffer buf;
  std::optional<http::request_parser<http::string_body>> parser;
  phase_t phase = phase_t::header;
  bool first_request = true;
  bool keep_alive = true;
  bool close_after = false;  ///< close once the queued bytes are written
  bool response_queued = false; ///< the answer's last bytes are queued
  bool streaming = false;
  uint64_t exchange = 0; ///< numbers requests; stale posts are ignored
  outbound_sink turn;
  net::steady_timer turn_deadline;
  std::optional<reply_collector> collector;
  std::optional<sse_writer> sse;
  std::deque<std::string> outq;
  std::vector<std::string> in_flight;
  size_t queued_bytes = 0;
  bool writing = false;
  size_t body_size = 0; ///< of the request being answered
  bool http10 = false;  ///< an HTTP/1.0 request: no chunked stream
  std::string chat_id;  ///< of the completion being answered, for logs
  bool closed = false;
  std::unique_ptr<char[]> drain; ///< discards what comes after a refusal
};

/// Everything the connections share; touched on the io thread only, except
/// where marked.
struct core : std::enable_shared_from_this<core> {
  core(caf::actor_system& sys, router_actor router, const settings& cfg,
       api_limits limits);

  void accept();
  void admit(tcp::socket s);
  void forget(conn& c);
  /// Returns memory to the system soon after a large request (once per
  /// second at most): freed request bodies otherwise stay in the heap.
  void trim_soon();
  void shutdown();

  caf::actor_system& sys;
  router_actor router;
  api_limits limits;
  std::string api_key;
  std::string model;            ///< the configured model
  api_agents agents;            ///< "model": "<agent id>" picks one
  std::chrono::seconds timeout; ///< api.timeout_s
  std::shared_ptr<spdlog::logger> log;

  net::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  net::steady_timer accept_pause{ioc};
  net::steady_timer trim_timer{ioc};
  bool trim_pending = false;
  bool stopping = false;
  bool refusing = false; ///< draining: new completions get 503
  std::list<std::shared_ptr<conn>> conns; ///< oldest first
  std::map<std::string, size_t> per_client;
  std::atomic<size_t> open{0}; ///< read by any thread
};

} // namespace nb::api::detail
