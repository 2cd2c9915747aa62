// A SOCKS5 server on 127.0.0.1 for the proxy settings' tests (RFC 1928,
// user/password per RFC 1929, CONNECT only): it records what each client
// asked for and connects names only from its own table, so a test proves
// the name was resolved by the proxy, not by us.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace nb::test {

class fake_socks5 {
public:
  struct request {
    std::string host; ///< as the client named it (a name or an address)
    int port = 0;
    std::string user; ///< "" = no login
  };

  /// `user` empty: no authentication; else only this login is taken.
  explicit fake_socks5(std::string user = "", std::string password = "");
  ~fake_socks5();
  fake_socks5(const fake_socks5&) = delete;
  fake_socks5& operator=(const fake_socks5&) = delete;

  int port() const;
  /// Connects requests for `name` to 127.0.0.1 (any other name: "host
  /// unreachable").
  void know(std::string name);
  std::vector<request> requests() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
