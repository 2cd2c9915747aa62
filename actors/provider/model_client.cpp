#include "actors/provider/model_client.hpp"

#include <algorithm>
#include <optional>
#include <thread>

#include "actors/provider/model_client_impl.hpp"
#include "actors/provider/text_quirks.hpp"
#include "actors/common/http_proxy.hpp"

namespace nb {

using namespace detail;

client_options client_options_from(const settings& cfg) {
  client_options o;
  auto llm = ms{int64_t{cfg.timeouts.llm_timeout_s} * 1000};
  o.call_timeout = llm.count() > 0 ? llm : ms{0};
  o.stream_call_timeout = llm.count() > 0 ? std::max(ms{300'000}, 2 * llm)
                                          : ms{0};
  auto idle = cfg.timeouts.stream_idle_timeout_s;
  // The original clamps the idle timeout to an hour; nonsense -> default.
  if (idle > 0)
    o.stream_idle_timeout = ms{int64_t{std::min(idle, 3600)} * 1000};
  return o;
}

model_client::impl::impl(provider_choice c, client_options o,
                          std::shared_ptr<const std::atomic<bool>> cancel_flag)
  : choice(std::move(c)), opts(std::move(o)), cancel(std::move(cancel_flag)),
    wire(make_wire_format(choice.api)), base(parse_base_url(choice.api_base)) {
  if (!base)
    return;
  http = std::make_unique<httplib::Client>(base->scheme_host_port);
  http->set_keep_alive(true);
  // Headers and body go out in separate writes: without this, Nagle and
  // the server's delayed ACK add ~40 ms to every keep-alive request.
  http->set_tcp_nodelay(true);
  http->set_follow_location(false);
  auto ct = opts.connect_timeout;
  http->set_connection_timeout(ct.count() / 1000, (ct.count() % 1000) * 1000);
  if (base->https && !opts.ca_cert_path.empty())
    http->set_ca_cert_path(opts.ca_cert_path);
  use_proxy(*http, choice.proxy); // providers.<name>.proxy
  dog = std::make_unique<watchdog>([h = http.get()] { h->stop(); }, cancel);
}

bool model_client::impl::sleep(ms d) {
  auto until = clock_type::now() + d;
  while (clock_type::now() < until) {
    if (cancelled())
      return false;
    std::this_thread::sleep_for(
      std::min<clock_type::duration>(ms{50}, until - clock_type::now()));
  }
  return !cancelled();
}

attempt model_client::impl::run(const std::string& body, bool stream,
                                 bool mute, clock_type::time_point call_deadline,
                                 const callbacks& cb) {
  attempt a;
  auto window = stream ? or_forever(opts.stream_idle_timeout)
                       : or_forever(opts.attempt_timeout);
  // The socket read timeout only backs up the watchdog, which knows about
  // stream events and the call's wall clock.
  auto backstop = window + ms{2'000};
  http->set_read_timeout(backstop.count() / 1000,
                         (backstop.count() % 1000) * 1000);
  http->set_write_timeout(backstop.count() / 1000,
                          (backstop.count() % 1000) * 1000);
  httplib::Request req;
  req.method = "POST";
  req.path = with_query(wire->path(*base), choice.query);
  req.body = body;
  req.set_header("Content-Type", "application/json");
  req.set_header("Accept", stream ? "text/event-stream" : "application/json");
  for (auto& [k, v] : wire->headers(choice.api_key))
    req.set_header(k, v);
  for (auto& [k, v] : choice.headers)
    req.set_header(k, v);
  int status = 0;
  bool sse = false;
  bool too_large = false;
  size_t received = 0;
  std::string raw;
  sse_splitter splitter;
  auto decoder = wire->decoder();
  auto& acc = *decoder;
  quirk_filter quirks;
  auto deliver = [&](stream_piece& p) {
    if (!p.hosted_tool.empty()) {
      if (!mute && cb.on_hosted_tool)
        cb.on_hosted_tool(std::move(p.hosted_tool), std::move(p.text));
      return;
    }
    if (!mute && cb.on_delta && !p.text.empty()) {
      // Reasoning is never shown as the answer: only text counts as seen.
      a.emitted = a.emitted || !p.reasoning;
      cb.on_delta(std::move(p.text), p.reasoning);
    }
  };
  req.response_handler = [&](const httplib::Response& r) {
    status = r.status;
    sse = stream && r.status / 100 == 2
          && r.get_header_value("Content-Type").find("text/event-stream")
               != std::string::npos;
    return true;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    received += n;
    if (received > opts.max_response_bytes) {
      too_large = true;
      return false;
    }
    if (!sse) {
      raw.append(data, n);
      return true;
    }
    splitter.feed({data, n}, [&](std::string_view event) {
      // Only events count as progress: ": ping" comments never get here.
      dog->extend(std::min(clock_type::now() + window, call_deadline));
      for (auto& d : acc.apply(event)) {
        if (d.reasoning || !d.hosted_tool.empty())
          deliver(d);
        else
          for (auto& p : quirks.feed(d.text))
            deliver(p);
      }
    });
    return acc.error().empty();
  };
  dog->arm(std::min(clock_type::now() + window, call_deadline));
  httplib::Response res;
  auto err = httplib::Error::Success;
  http->send(req, res, err);
  auto fired = dog->disarm();
  res.status = status != 0 ? status : res.status;
  if (fired == watchdog::reason::cancelled) {
    a.failure = attempt_failure{failure_kind::cancelled, 0,
                                cancelled_call_text, false, {}};
  } else if (fired == watchdog::reason::deadline) {
    a.deadline_hit = true;
    auto what = stream ? "no stream event for " : "no response within ";
    a.failure = attempt_failure{failure_kind::timeout, 0,
                                std::string{"timed out ("} + what
                                  + seconds_text(window) + "s)",
                                true, {}};
  } else {
    classify(a, res, err, raw, sse, too_large, acc);
    if (sse && !a.failure)
      for (auto& p : quirks.flush())
        deliver(p);
    // A server that ignored "stream" still answered: show it as one piece.
    if (stream && !sse && !a.failure) {
      for (auto& p : quirks.feed(a.reply.content))
        deliver(p);
      for (auto& p : quirks.flush())
        deliver(p);
    }
  }
  return a;
}

void model_client::impl::classify(attempt& a, const httplib::Response& res,
                                   httplib::Error err, const std::string& raw,
                                   bool sse, bool too_large,
                                   stream_decoder& acc) {
  auto fail = [&](failure_kind k, std::string detail, bool transient) {
    a.failure = attempt_failure{k, res.status > 0 ? res.status : 0,
                                std::move(detail), transient, {}};
  };
  if (too_large) {
    fail(failure_kind::too_large,
         "the response exceeded "
           + std::to_string(opts.max_response_bytes >> 20) + " MiB",
         false);
    return;
  }
  if (err != httplib::Error::Success && !(sse && !acc.error().empty())) {
    auto text = httplib::to_string(err);
    switch (err) {
      case httplib::Error::SSLConnection:
      case httplib::Error::SSLLoadingCerts:
      case httplib::Error::SSLServerVerification:
        fail(failure_kind::tls, "TLS error talking to " + base->host + ": "
                                  + text + " (check the certificate)",
             false);
        return;
      case httplib::Error::Connection:
      case httplib::Error::ConnectionTimeout:
        fail(failure_kind::connection,
             "could not connect to " + base->scheme_host_port + " (" + text
               + ")",
             true);
        return;
      default:
        fail(failure_kind::connection, "connection lost (" + text + ")", true);
        return;
    }
  }
  a.reply.http_status = res.status;
  if (res.status / 100 != 2) {
    fail(failure_kind::http_status, http_error_detail(res.status, raw),
         retryable_status(res.status, raw));
    a.failure->retry_after = retry_after_hint(
      res.get_header_value("Retry-After"),
      res.get_header_value("retry-after-ms"));
    return;
  }
  if (sse) {
    if (!acc.error().empty()) {
      fail(failure_kind::protocol, acc.error(), transient_text(acc.error()));
      return;
    }
    if (!acc.finished()) {
      // The body ended cleanly but the answer did not (a proxy cut it).
      fail(failure_kind::connection,
           "the stream ended before the model finished", true);
      return;
    }
    acc.finish(a.reply);
    return;
  }
  // A server may ignore "stream": a whole JSON completion is fine too.
  if (auto problem = wire->parse(raw, a.reply); !problem.empty()) {
    fail(failure_kind::protocol, problem, false);
  }
}

model_client::model_client(provider_choice choice, client_options options,
                             std::shared_ptr<const std::atomic<bool>> cancel)
  : impl_(std::make_unique<impl>(std::move(choice), std::move(options),
                                 std::move(cancel))) {
  // nop
}

model_client::~model_client() = default;

const provider_choice& model_client::choice() const {
  return impl_->choice;
}

} // namespace nb
