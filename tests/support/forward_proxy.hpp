// An HTTP forward proxy on 127.0.0.1 for tests of the proxy settings
// (providers.*.proxy, tools.web.proxy): CONNECT tunnels and absolute-form
// requests, as squid or privoxy answer them. It records what it was asked
// for; it may send every target to one local port instead of resolving the
// name (so a test proves the name was resolved by the proxy, not by us).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace nb::test {

class forward_proxy {
public:
  /// What one client connection asked for.
  struct request {
    std::string method; ///< "CONNECT", "POST", ...
    std::string target; ///< "host:443" or "http://host:port/path?q"
    std::string proxy_authorization; ///< the header's value, "" = none
  };

  forward_proxy();
  ~forward_proxy();
  forward_proxy(const forward_proxy&) = delete;
  forward_proxy& operator=(const forward_proxy&) = delete;

  int port() const;
  /// "http://127.0.0.1:<port>"
  std::string url() const;
  /// Connects every target to `host`:`port` instead of its own address.
  void route_all_to(std::string host, int port);
  std::vector<request> requests() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
