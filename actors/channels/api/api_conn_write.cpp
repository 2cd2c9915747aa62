// One API connection, the writing side: whole responses and SSE streams
// through a bounded backlog, then the next request or a lingering close.
// Runs on the server's io thread only.
#include "actors/channels/api/api_core.hpp"

#include <boost/beast/http/status.hpp>
#include <caf/all.hpp>

namespace nb::api::detail {

namespace {

constexpr auto linger_time = std::chrono::seconds(2);

std::string hex(size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[n & 0xf]);
    n >>= 4;
  } while (n != 0);
  return out;
}

} // namespace

void conn::respond(int status, std::string body, bool close,
                   const char* extra_headers) {
  phase = phase_t::answering;
  close_after = close || owner.stopping;
  auto reason = http::obsolete_reason(http::int_to_status(status));
  std::string out = "HTTP/1.1 " + std::to_string(status) + ' '
                    + std::string{reason.data(), reason.size()} + "\r\n";
  out += "Content-Type: application/json\r\nContent-Length: "
         + std::to_string(body.size()) + "\r\n" + extra_headers;
  if (close_after)
    out += "Connection: close\r\n";
  out += "\r\n";
  out += body;
  response_queued = true;
  queue(std::move(out));
}

void conn::respond_error(const api_error& err, bool close) {
  respond(err.status, error_body(err), close,
          err.status == 401 ? "WWW-Authenticate: Bearer\r\n" : "");
}

void conn::begin_stream() {
  streaming = true;
  std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n";
  if (http10) {
    keep_alive = false; // the stream's end is the connection's
    head += "Connection: close\r\n";
  } else {
    head += "Transfer-Encoding: chunked\r\n";
    if (!keep_alive)
      head += "Connection: close\r\n";
  }
  queue(head + "\r\n");
  stream_bytes(sse->opening());
}

void conn::stream_bytes(const std::string& frames) {
  if (closed || frames.empty())
    return;
  queue(http10 ? frames : hex(frames.size()) + "\r\n" + frames + "\r\n");
  if (queued_bytes > owner.limits.max_stream_backlog_bytes) {
    owner.log->warn("[api:{}] client {} does not read its stream ({} bytes "
                    "waiting): dropped; the turn goes on",
                    chat_id, client, queued_bytes);
    close();
  }
}

void conn::end_stream(const std::string& last_frames) {
  stream_bytes(last_frames);
  if (closed)
    return;
  close_after = !keep_alive || owner.stopping;
  response_queued = true;
  queue(http10 ? std::string{} : std::string{"0\r\n\r\n"});
}

void conn::queue(std::string bytes) {
  queued_bytes += bytes.size();
  outq.push_back(std::move(bytes));
  if (!writing)
    write_next();
}

void conn::write_next() {
  if (closed)
    return;
  if (outq.empty()) {
    writing = false;
    if (response_queued)
      exchange_written();
    return;
  }
  writing = true;
  // Everything queued goes out in one write: frames that piled up while
  // the last write was in flight travel together.
  in_flight.assign(std::make_move_iterator(outq.begin()),
                   std::make_move_iterator(outq.end()));
  outq.clear();
  std::vector<net::const_buffer> pieces;
  pieces.reserve(in_flight.size());
  for (const auto& s : in_flight)
    pieces.push_back(net::buffer(s));
  stream.expires_after(owner.limits.write_timeout);
  net::async_write(stream, pieces,
                   [self = shared_from_this()](beast::error_code ec,
                                               size_t n) {
                     if (self->closed)
                       return;
                     if (ec) {
                       self->close();
                       return;
                     }
                     self->queued_bytes -= n;
                     self->in_flight.clear();
                     self->write_next();
                   });
}

void conn::exchange_written() {
  response_queued = false;
  streaming = false;
  sse.reset();
  collector.reset();
  if (body_size >= large_body)
    owner.trim_soon();
  body_size = 0;
  if (buf.capacity() > read_slack)
    buf.shrink_to_fit();
  if (close_after || owner.stopping) {
    linger_close();
    return;
  }
  read_header();
}

void conn::linger_close() {
  // Closing with unread input makes the kernel send a reset, which can
  // destroy the response before the client reads it: stop sending, then
  // discard what still comes for a moment.
  phase = phase_t::closing;
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  if (!drain) {
    drain = std::make_unique<char[]>(4096);
    stream.expires_after(linger_time); // once: a sender cannot extend it
  }
  stream.async_read_some(net::buffer(drain.get(), 4096),
                         [self = shared_from_this()](beast::error_code e,
                                                     size_t) {
                           if (e)
                             self->close();
                           else
                             self->linger_close();
                         });
}

void conn::close() {
  if (closed)
    return;
  closed = true;
  phase = phase_t::closing;
  auto self = shared_from_this();
  end_turn();
  outq.clear();
  stream.close();
  owner.forget(*this);
}

void conn::shutdown() {
  switch (phase) {
    case phase_t::header:
    case phase_t::body:
      close();
      return;
    case phase_t::answering:
      if (turn)
        fail_exchange(shutting_down());
      else
        close_after = true;
      return;
    case phase_t::closing:
      return;
  }
}

void conn::evict() {
  owner.log->debug("[api] closing an idle connection of {} to make room",
                   client);
  close();
}

void conn::refuse(const std::string& why) {
  owner.log->warn("[api] refused a connection: {}", why);
  respond_error({503, why, "server_error"}, true);
}

} // namespace nb::api::detail
