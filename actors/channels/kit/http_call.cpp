#include "actors/channels/kit/http_call.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <httplib.h>

#include "actors/common/strings.hpp"

namespace nb::chan {

struct http_endpoint::impl {
  std::unique_ptr<httplib::Client> cli;
  std::string prefix;
};

http_endpoint::http_endpoint(const std::string& base_url)
  : impl_(std::make_unique<impl>()) {
  auto scheme_end = base_url.find("://");
  if (scheme_end == std::string::npos
      || (base_url.compare(0, scheme_end, "http") != 0
          && base_url.compare(0, scheme_end, "https") != 0)) {
    problem_ = "not an http(s) URL: \"" + base_url + "\"";
    return;
  }
  auto host_end = base_url.find('/', scheme_end + 3);
  std::string origin = base_url.substr(0, host_end);
  if (host_end != std::string::npos)
    impl_->prefix = base_url.substr(host_end);
  while (!impl_->prefix.empty() && impl_->prefix.back() == '/')
    impl_->prefix.pop_back();
  try {
    impl_->cli = std::make_unique<httplib::Client>(origin);
  } catch (const std::exception& e) {
    problem_ = std::string{"bad URL: "} + e.what();
    return;
  }
  if (!impl_->cli->is_valid()) {
    problem_ = "bad URL: \"" + base_url + "\"";
    return;
  }
  impl_->cli->set_connection_timeout(10, 0);
  impl_->cli->set_keep_alive(true);
  // Headers and body go out in separate writes: without this, Nagle and
  // the server's delayed ACK add ~40 ms to every small request.
  impl_->cli->set_tcp_nodelay(true);
}

http_endpoint::~http_endpoint() = default;

void http_endpoint::abort() {
  if (impl_->cli)
    impl_->cli->stop();
}

http_reply http_endpoint::call(const std::string& method,
                               const std::string& path,
                               const std::string& body,
                               const std::map<std::string, std::string>& headers,
                               std::chrono::seconds timeout,
                               const std::string& content_type) {
  http_reply out;
  if (!problem_.empty()) {
    out.error = problem_;
    return out;
  }
  httplib::Request req;
  req.method = method;
  req.path = impl_->prefix + path;
  for (auto& [k, v] : headers)
    req.set_header(k, v);
  if (!body.empty()) {
    req.body = body;
    req.set_header("Content-Type", content_type);
  }
  impl_->cli->set_read_timeout(timeout.count(), 0);
  impl_->cli->set_write_timeout(timeout.count(), 0);
  try {
    auto res = impl_->cli->send(req);
    if (!res) {
      out.error = httplib::to_string(res.error());
      return out;
    }
    out.status = res->status;
    out.body = std::move(res->body);
    for (const auto& [name, value] : res->headers) {
      out.headers.emplace(ascii_lower(name), value);
    }
  } catch (const std::exception& e) {
    out.error = e.what();
    return out;
  }
  finish_reply(out);
  return out;
}

void finish_reply(http_reply& r) {
  if (auto it = r.headers.find("retry-after"); it != r.headers.end()) {
    try {
      r.retry_after_s = std::stod(it->second);
    } catch (const std::exception&) {
      r.retry_after_s = 0;
    }
  }
  if (!r.body.empty()) {
    try {
      r.json = nlohmann::json::parse(r.body);
    } catch (const std::exception&) {
      r.json = nullptr;
    }
  }
}

double rate_limit_wait_s(const http_reply& r) {
  if (r.json.is_object() && r.json.contains("retry_after")
      && r.json["retry_after"].is_number())
    return r.json["retry_after"].get<double>();
  return r.retry_after_s;
}

std::string download_file(const std::string& url, const std::string& dest,
                          int64_t max_bytes, std::chrono::seconds timeout) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos
      || (url.compare(0, scheme_end, "http") != 0
          && url.compare(0, scheme_end, "https") != 0))
    return "not an http(s) URL";
  auto path_at = url.find('/', scheme_end + 3);
  auto path = path_at == std::string::npos ? "/" : url.substr(path_at);
  auto part = dest + ".part";
  std::string why;
  try {
    httplib::Client cli{url.substr(0, path_at)};
    if (!cli.is_valid())
      return "bad URL";
    cli.set_connection_timeout(10, 0);
    cli.set_read_timeout(timeout.count(), 0);
    cli.set_follow_location(true);
    std::ofstream out{part, std::ios::binary | std::ios::trunc};
    if (!out)
      return "cannot write " + part;
    int64_t got = 0;
    int status = 0;
    auto res = cli.Get(
      path,
      [&](const httplib::Response& r) {
        status = r.status;
        if (status < 200 || status >= 300)
          return false;
        if (r.has_header("Content-Length")) {
          auto len = std::strtoll(r.get_header_value("Content-Length").c_str(),
                                  nullptr, 10);
          if (len > max_bytes) {
            why = std::to_string(len) + " bytes is over the limit of "
                  + std::to_string(max_bytes);
            return false;
          }
        }
        return true;
      },
      [&](const char* data, size_t n) {
        got += static_cast<int64_t>(n);
        if (got > max_bytes) {
          why = "over the limit of " + std::to_string(max_bytes) + " bytes";
          return false;
        }
        out.write(data, static_cast<std::streamsize>(n));
        return static_cast<bool>(out);
      });
    out.close();
    if (why.empty() && status != 0 && (status < 200 || status >= 300))
      why = "HTTP " + std::to_string(status);
    if (why.empty() && !res)
      why = httplib::to_string(res.error());
    if (why.empty() && !out)
      why = "cannot write " + part;
  } catch (const std::exception& e) {
    why = e.what();
  }
  std::error_code ec;
  if (why.empty())
    std::filesystem::rename(part, dest, ec);
  if (!why.empty() || ec) {
    std::filesystem::remove(part, ec);
    return why.empty() ? "cannot rename to " + dest : why;
  }
  return "";
}

http_reply call_waiting_out_429(
  http_endpoint& endpoint, const std::string& method, const std::string& path,
  const std::string& body, const std::map<std::string, std::string>& headers,
  double max_wait_s, int attempts, std::chrono::seconds timeout) {
  for (int attempt = 1;; ++attempt) {
    auto r = endpoint.call(method, path, body, headers, timeout);
    if (r.status != 429 || attempt >= attempts)
      return r;
    double wait = rate_limit_wait_s(r);
    if (wait > max_wait_s)
      return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(
      static_cast<int64_t>(std::max(wait, 0.05) * 1000)));
  }
}

} // namespace nb::chan
