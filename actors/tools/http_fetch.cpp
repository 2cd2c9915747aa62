#include "actors/tools/http_fetch.hpp"
#include "actors/common/strings.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>

#include <httplib.h>

#include "actors/common/http_proxy.hpp"

namespace nb {

namespace {

using steady = std::chrono::steady_clock;

std::string error_text(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection: return "could not connect";
    case httplib::Error::Read: return "read failed or timed out";
    case httplib::Error::Write: return "write failed";
    case httplib::Error::SSLConnection: return "TLS connection failed";
    case httplib::Error::SSLServerVerification:
      return "TLS certificate verification failed";
    case httplib::Error::Canceled: return "canceled";
    default:
      return "request failed (httplib error "
             + std::to_string(static_cast<int>(e)) + ")";
  }
}

} // namespace

http_response http_send(const http_request& req, const ssrf_policy& policy) {
  http_response out;
  auto deadline = steady::now() + std::chrono::seconds(req.timeout_s);
  std::string url = req.url;
  std::string method = req.method;
  std::string body = req.body;
  for (int hop = 0;; ++hop) {
    parsed_url u;
    if (auto err = parse_url(url, u); !err.empty()) {
      out.error = err;
      out.blocked = true;
      return out;
    }
    auto verdict = check_url_target(u, policy);
    if (!verdict.ok()) {
      out.error = verdict.error;
      out.blocked = true;
      out.final_url = u.str();
      return out;
    }
    out.final_url = u.str();
    // Whole seconds for httplib, rounded up: 1.9 s left is 2, not 1, and
    // a 1 s budget is not rounded down to nothing.
    auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                     deadline - steady::now())
                     .count();
    auto left = (left_ms + 999) / 1000;
    if (left_ms <= 0) {
      out.error = "timed out after " + std::to_string(req.timeout_s) + " s";
      return out;
    }
    try {
      httplib::Client cli(u.origin());
      // Pinning: the name maps to the address just validated, so the
      // connection cannot land anywhere a second lookup would say. Through
      // a proxy, the proxy resolves names (a boundary the user chose).
      if (!verdict.ip.empty())
        cli.set_hostname_addr_map({{u.host, verdict.ip}});
      use_proxy(cli, policy.proxy);
      cli.set_connection_timeout(std::min<long>(req.connect_timeout_s, left),
                                 0);
      cli.set_read_timeout(std::min<long>(req.read_timeout_s, left), 0);
      cli.set_write_timeout(std::min<long>(15, left), 0);
      cli.set_follow_location(false);
      httplib::Request r;
      r.method = method;
      r.path = u.target;
      r.set_header("User-Agent", "nanobot-cpp/1.0");
      for (auto& [k, v] : req.headers)
        r.set_header(k, v);
      if (!body.empty()) {
        r.body = body;
        if (!req.content_type.empty())
          r.set_header("Content-Type", req.content_type);
      }
      std::string collected;
      size_t got = 0;
      out.truncated = false;
      int status = 0;
      out.headers.clear();
      // Kept here too: a body cut short leaves no Result to read them from.
      r.response_handler = [&](const httplib::Response& res) {
        status = res.status;
        for (auto& [k, v] : res.headers)
          out.headers.emplace(ascii_lower(k), v);
        return true;
      };
      r.content_receiver = [&](const char* data, size_t n, uint64_t,
                               uint64_t) {
        // Redirect bodies are not wanted; others are capped as they come.
        if (status >= 300 && status < 400)
          return true;
        if (steady::now() > deadline)
          return false;
        size_t room = req.max_bytes > got ? req.max_bytes - got : 0;
        size_t take = std::min(room, n);
        got += take;
        if (req.on_data) {
          if (take && !req.on_data(data, take))
            return false;
        } else {
          collected.append(data, take);
        }
        if (take < n) {
          out.truncated = true;
          return false;
        }
        return true;
      };
      auto res = cli.send(r);
      if (!res && !(out.truncated && res.error() == httplib::Error::Canceled)) {
        if (res.error() == httplib::Error::Canceled && steady::now() > deadline)
          out.error = "timed out after " + std::to_string(req.timeout_s)
                      + " s";
        else if (!(req.on_data && res.error() == httplib::Error::Canceled))
          out.error = error_text(res.error());
        if (!out.error.empty())
          return out;
      }
      out.status = res ? res->status : status;
      auto ct = out.headers.find("content-type");
      out.content_type = ct == out.headers.end() ? "" : ct->second;
      bool redirect = out.status == 301 || out.status == 302
                      || out.status == 303 || out.status == 307
                      || out.status == 308;
      auto loc = out.headers.find("location");
      if (redirect && loc != out.headers.end()) {
        if (hop >= req.max_redirects) {
          out.error = "Too many redirects: exceeded limit of "
                      + std::to_string(req.max_redirects);
          return out;
        }
        url = resolve_reference(u, loc->second);
        parsed_url next;
        std::string refused = parse_url(url, next);
        if (refused.empty() && req.redirect_rule)
          refused = req.redirect_rule(u, next);
        if (!refused.empty()) {
          out.error = refused;
          out.blocked = true;
          return out;
        }
        if (out.status == 303 || ((out.status == 301 || out.status == 302)
                                  && method == "POST")) {
          method = "GET";
          body.clear();
        }
        continue;
      }
      if (!req.on_data)
        out.body = std::move(collected);
      return out;
    } catch (const std::exception& e) {
      out.error = std::string{"request failed: "} + e.what();
      return out;
    }
  }
}

} // namespace nb
