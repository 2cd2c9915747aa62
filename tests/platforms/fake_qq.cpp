// fake_qq: start and stop, and the addresses a test hands the adapter (the
// state and the server threads are in fake_qq_impl.hpp).
#include "tests/platforms/fake_qq.hpp"
#include "tests/platforms/fake_qq_impl.hpp"

namespace nb::test {

fake_qq::fake_qq(int heartbeat_ms) : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->heartbeat_ms = heartbeat_ms;
  d->gateway = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); });
  d->rest.Post("/app/getAppAccessToken", [d](const httplib::Request& req,
                                             httplib::Response& res) {
    auto body = json::parse(req.body, nullptr, false);
    std::lock_guard<std::mutex> g{d->mx};
    ++d->token_fetches;
    if (!body.is_object() || body.value("appId", "") != app_id
        || body.value("clientSecret", "") != secret) {
      res.set_content(R"({"code":100016,"message":"invalid appid or secret"})",
                      "application/json");
      return;
    }
    auto token = "tok-" + std::to_string(d->token_fetches);
    d->tokens.insert(token);
    res.set_content(json{{"access_token", token},
                         {"expires_in", std::to_string(d->lifetime)}}
                      .dump(),
                    "application/json");
  });
  d->rest.Get("/gateway", [d](const httplib::Request& req,
                              httplib::Response& res) {
    if (!d->authed(req, res))
      return;
    res.set_content(json{{"url", d->gateway->url() + "/websocket"}}.dump(),
                    "application/json");
  });
  d->rest.Post(R"(/v2/users/([^/]+)/messages)",
               [d](const httplib::Request& req, httplib::Response& res) {
                 d->post_message(req, res, "users");
               });
  d->rest.Post(R"(/v2/groups/([^/]+)/messages)",
               [d](const httplib::Request& req, httplib::Response& res) {
                 d->post_message(req, res, "groups");
               });
  d->uploads.install(d->rest,
                     [d](const httplib::Request& req, httplib::Response& res) {
                       return d->authed(req, res);
                     });
  d->rest.Get(R"(/files/(.+))", [d](const httplib::Request& req,
                                    httplib::Response& res) {
    std::lock_guard<std::mutex> g{d->mx};
    auto it = d->files.find(req.matches[1]);
    if (it == d->files.end()) {
      res.status = 404;
      return;
    }
    res.set_content(it->second, "application/octet-stream");
  });
  d->rest.set_tcp_nodelay(true);
  d->rest_port = d->rest.bind_to_any_port("127.0.0.1");
  d->rest_thread = std::thread{[d] { d->rest.listen_after_bind(); }};
  while (!d->rest.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_qq::~fake_qq() {
  impl_->closing = true;
  impl_->rest.stop();
  impl_->rest_thread.join();
  impl_->gateway.reset();
}

std::string fake_qq::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->rest_port);
}

json fake_qq::adapter_config() const {
  return json{{"enabled", true},      {"appId", app_id},
              {"secret", secret},     {"apiBase", base_url()},
              {"tokenBase", base_url()}, {"ackMessage", ""}};
}

std::string fake_qq::gateway_url() const {
  return impl_->gateway->url() + "/websocket";
}

std::string fake_qq::file_url(const std::string& name) const {
  return base_url() + "/files/" + name;
}

} // namespace nb::test
