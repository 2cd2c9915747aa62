#include "actors/channels/kit/http_flights.hpp"

#include <atomic>

#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "actors/channels/kit/ws_url.hpp"
#include "actors/common/strings.hpp"

namespace nb::chan {

namespace flights_detail {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

/// One request: its connection and what it reads. Handlers hold it by
/// shared_ptr, so a cancelled one lives until its handlers have run.
struct flight {
  flight(net::io_context& ioc, uint64_t t) : tag(t), resolver(ioc) {}

  uint64_t tag;
  bool cancelled = false;
  std::chrono::seconds timeout{30};
  tcp::resolver resolver;
  std::unique_ptr<beast::tcp_stream> plain;
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> tls;
  http::request<http::string_body> req;
  http::response_parser<http::string_body> parser;
  beast::flat_buffer buf;

  template <class F>
  void visit(F&& f) {
    if (tls)
      f(*tls);
    else
      f(*plain);
  }

  beast::tcp_stream& lowest() { return tls ? tls->next_layer() : *plain; }

  void close() {
    beast::error_code ignored;
    resolver.cancel();
    lowest().socket().close(ignored);
  }
};

using flight_ptr = std::shared_ptr<flight>;
using landed = http_flights::landed;

/// What http_flights holds: the io_context and the requests in flight.
struct deck {
  net::io_context ioc;
  /// Keeps run_one_until() waiting while nothing is in flight.
  net::executor_work_guard<net::io_context::executor_type> work{
    ioc.get_executor()};
  ssl::context ssl_ctx{ssl::context::tls_client};
  ws_url origin;
  std::string prefix; ///< the base URL's path, without a trailing '/'
  std::map<uint64_t, flight_ptr> flying;
  std::vector<landed> done;
  std::atomic<bool> woken{false};

  deck() {
    ssl_ctx.set_default_verify_paths();
    ssl_ctx.set_verify_mode(ssl::verify_peer);
  }

  ~deck() {
    for (auto& [tag, f] : flying) {
      f->cancelled = true;
      f->close();
    }
    flying.clear();
    ioc.poll(); // the aborted operations end, dropping their flights
  }

  void land(const flight_ptr& f, http_reply reply) {
    if (f->cancelled)
      return;
    f->cancelled = true; // no later handler of it lands again
    f->close();
    flying.erase(f->tag);
    done.push_back({f->tag, std::move(reply)});
  }

  void fail(const flight_ptr& f, const char* what,
            const beast::error_code& ec) {
    http_reply r;
    r.error = std::string{what} + ": " + ec.message();
    land(f, std::move(r));
  }

  void read_answer(const flight_ptr& f) {
    auto& res = f->parser.get();
    http_reply r;
    r.status = static_cast<int>(res.result_int());
    r.body = std::move(res.body());
    for (const auto& h : res)
      r.headers.emplace(ascii_lower(std::string{h.name_string()}),
                        std::string{h.value()});
    finish_reply(r);
    land(f, std::move(r));
  }

  void exchange(const flight_ptr& f) {
    f->lowest().expires_after(f->timeout);
    f->visit([this, f](auto& stream) {
      http::async_write(
        stream, f->req, [this, f, &stream](beast::error_code ec, size_t) {
          if (f->cancelled)
            return;
          if (ec)
            return fail(f, "send", ec);
          http::async_read(stream, f->buf, f->parser,
                           [this, f](beast::error_code ec2, size_t) {
                             if (f->cancelled)
                               return;
                             if (ec2)
                               return fail(f, "read", ec2);
                             read_answer(f);
                           });
        });
    });
  }

  void start(const flight_ptr& f) {
    f->resolver.async_resolve(
      origin.host, origin.port,
      [this, f](beast::error_code ec, tcp::resolver::results_type to) {
        if (f->cancelled)
          return;
        if (ec)
          return fail(f, "resolve", ec);
        connect(f, to);
      });
  }

  void connect(const flight_ptr& f, const tcp::resolver::results_type& to) {
    f->lowest().expires_after(std::min(f->timeout, std::chrono::seconds(10)));
    f->lowest().async_connect(
      to, [this, f](beast::error_code ec, const tcp::endpoint&) {
        if (f->cancelled)
          return;
        if (ec)
          return fail(f, "connect", ec);
        if (!f->tls)
          return exchange(f);
        f->tls->async_handshake(ssl::stream_base::client,
                                [this, f](beast::error_code ec2) {
                                  if (f->cancelled)
                                    return;
                                  if (ec2)
                                    return fail(f, "TLS handshake", ec2);
                                  exchange(f);
                                });
      });
  }
};

} // namespace flights_detail

struct http_flights::impl : flights_detail::deck {};

http_flights::http_flights(const std::string& base_url)
  : impl_(std::make_unique<impl>()) {
  auto& d = *impl_;
  if (!parse_http_url(base_url, d.origin)) {
    problem_ = "not an http(s) URL: \"" + base_url + "\"";
    return;
  }
  d.prefix = d.origin.target.substr(0, d.origin.target.find('?'));
  while (!d.prefix.empty() && d.prefix.back() == '/')
    d.prefix.pop_back();
}

http_flights::~http_flights() = default;

void http_flights::start(uint64_t tag, const std::string& method,
                         const std::string& path, const std::string& body,
                         const std::map<std::string, std::string>& headers,
                         std::chrono::seconds timeout) {
  auto& d = *impl_;
  namespace http = boost::beast::http;
  auto f = std::make_shared<flights_detail::flight>(d.ioc, tag);
  d.flying[tag] = f;
  if (!problem_.empty()) {
    http_reply r;
    r.error = problem_;
    d.land(f, std::move(r));
    return;
  }
  f->timeout = timeout;
  auto verb = http::string_to_verb(method);
  f->req.method(verb == http::verb::unknown ? http::verb::post : verb);
  f->req.target(d.prefix + path);
  f->req.version(11);
  bool default_port = d.origin.port == (d.origin.tls ? "443" : "80");
  f->req.set(http::field::host,
             d.origin.host + (default_port ? "" : ":" + d.origin.port));
  for (const auto& [k, v] : headers)
    f->req.set(k, v);
  if (!body.empty()) {
    f->req.set(http::field::content_type, "application/json");
    f->req.body() = body;
  }
  f->req.keep_alive(false);
  f->req.prepare_payload();
  f->parser.body_limit(64 * 1024 * 1024);
  if (d.origin.tls) {
    f->tls = std::make_unique<
      boost::beast::ssl_stream<boost::beast::tcp_stream>>(d.ioc, d.ssl_ctx);
    SSL_set_tlsext_host_name(f->tls->native_handle(), d.origin.host.c_str());
    f->tls->set_verify_callback(
      boost::asio::ssl::host_name_verification(d.origin.host));
  } else {
    f->plain = std::make_unique<boost::beast::tcp_stream>(d.ioc);
  }
  d.start(f);
}

std::vector<http_flights::landed>
http_flights::wait(std::chrono::steady_clock::time_point until, bool& woken) {
  auto& d = *impl_;
  woken = false;
  while (d.done.empty()) {
    if (d.woken.exchange(false)) {
      woken = true;
      break;
    }
    if (d.ioc.run_one_until(until) == 0
        || std::chrono::steady_clock::now() >= until)
      break;
  }
  return std::exchange(d.done, {});
}

void http_flights::cancel_all() {
  auto& d = *impl_;
  for (auto& [tag, f] : d.flying) {
    f->cancelled = true;
    f->close();
  }
  d.flying.clear();
  // The aborted operations end now, dropping what they hold.
  d.ioc.poll();
}

size_t http_flights::in_flight() const {
  return impl_->flying.size();
}

void http_flights::wake() {
  impl_->woken = true;
  // A handler to run ends a waiting run_one_until at once.
  boost::asio::post(impl_->ioc, [] {});
}

} // namespace nb::chan
