// HTTPS endpoints: certificates are verified, a failed verification is a
// clear error that is not retried, and a private CA can be trusted.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <httplib.h>

#include "tests/provider/client_fixture.hpp"
#include "tests/support/fake_socks5.hpp"
#include "tests/support/forward_proxy.hpp"

using namespace nb;
using namespace nb::test;

namespace {

/// A self-signed certificate for 127.0.0.1 in a fresh temp dir, made by the
/// openssl command; removed again at the end.
struct temp_cert {
  std::filesystem::path dir;
  std::string cert, key;
  bool ok = false;

  temp_cert() {
    char tmpl[] = "/tmp/nb-provider-tls-XXXXXX";
    if (!mkdtemp(tmpl))
      return;
    dir = tmpl;
    cert = (dir / "cert.pem").string();
    key = (dir / "key.pem").string();
    auto cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "
               "/CN=localhost -addext subjectAltName=IP:127.0.0.1 -keyout "
               + key + " -out " + cert + " >/dev/null 2>&1";
    ok = std::system(cmd.c_str()) == 0;
  }

  ~temp_cert() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

/// An HTTPS server answering every chat request with one completion.
struct tls_server {
  httplib::SSLServer svr;
  std::thread thread;
  int port = 0;

  tls_server(const temp_cert& c) : svr(c.cert.c_str(), c.key.c_str()) {
    svr.Post("/v1/chat/completions",
             [](const httplib::Request&, httplib::Response& res) {
               res.set_content(text("over tls").body, "application/json");
             });
    port = svr.bind_to_any_port("127.0.0.1");
    thread = std::thread{[this] { svr.listen_after_bind(); }};
    while (!svr.is_running())
      std::this_thread::sleep_for(milliseconds{1});
  }

  ~tls_server() {
    svr.stop();
    thread.join();
  }
};

provider_choice https_choice(int port) {
  provider_choice c;
  c.name = "custom";
  c.api_base = "https://127.0.0.1:" + std::to_string(port) + "/v1";
  c.model = "m";
  return c;
}

} // namespace

TEST_CASE("a self-signed certificate fails verification without retries") {
  temp_cert cert;
  REQUIRE(cert.ok);
  tls_server server{cert};
  model_client client{https_choice(server.port), fast()};
  auto r = client.chat(ask("x"), {});
  CHECK(r.finish_reason == "error");
  CHECK(r.error.find("TLS error") != std::string::npos);
  CHECK(r.attempts == 1);
}

TEST_CASE("a trusted private CA makes HTTPS work") {
  temp_cert cert;
  REQUIRE(cert.ok);
  tls_server server{cert};
  auto o = fast();
  o.ca_cert_path = cert.cert;
  model_client client{https_choice(server.port), o};
  auto r = client.chat(ask("x"), {});
  CHECK(r.error.empty());
  CHECK(r.content == "over tls");
}

TEST_CASE(
  "an HTTPS endpoint is reached through providers.*.proxy with CONNECT") {
  temp_cert cert;
  REQUIRE(cert.ok);
  tls_server server{cert};
  forward_proxy proxy;
  auto o = fast();
  o.ca_cert_path = cert.cert;
  auto c = https_choice(server.port);
  c.proxy = proxy.url();
  model_client client{c, o};
  auto r = client.chat(ask("x"), {});
  CHECK(r.error.empty());
  CHECK(r.content == "over tls");
  auto seen = proxy.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "CONNECT");
  CHECK(seen[0].target == "127.0.0.1:" + std::to_string(server.port));
}

TEST_CASE("an HTTPS endpoint is reached through a SOCKS5 proxy, TLS end to "
          "end") {
  temp_cert cert;
  REQUIRE(cert.ok);
  tls_server server{cert};
  fake_socks5 socks;
  socks.know("127.0.0.1");
  auto o = fast();
  o.ca_cert_path = cert.cert;
  auto c = https_choice(server.port);
  c.proxy = "socks5://127.0.0.1:" + std::to_string(socks.port());
  model_client client{c, o};
  auto r = client.chat(ask("x"), {});
  CHECK_MESSAGE(r.error.empty(), r.error);
  CHECK(r.content == "over tls");
  auto seen = socks.requests();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].host == "127.0.0.1");
  CHECK(seen[0].port == server.port);
  CHECK(seen[0].user.empty());
}
