#include "tests/platforms/fake_whatsapp_cloud.hpp"

#include <map>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "actors/channels/kit/hmac.hpp"

namespace nb::test {

using nlohmann::json;

namespace {

json envelope(json value) {
  value["messaging_product"] = "whatsapp";
  value["metadata"] = {{"display_phone_number", "15550001111"},
                       {"phone_number_id",
                        fake_whatsapp_cloud::phone_number_id}};
  return {{"object", "whatsapp_business_account"},
          {"entry",
           {{{"id", "102290129340398"},
             {"changes", {{{"value", value}, {"field", "messages"}}}}}}}};
}

json graph_error(int code, const std::string& message,
                 const std::string& type = "OAuthException") {
  return {{"error",
           {{"message", message},
            {"type", type},
            {"code", code},
            {"error_data", {{"messaging_product", "whatsapp"},
                            {"details", message}}},
            {"fbtrace_id", "Az8or2yhqkZfEZ-_4Qn_Bam"}}}};
}

/// "http://127.0.0.1:1234/path?x" -> client for the origin + the rest.
std::pair<std::string, std::string> split_url(const std::string& url) {
  auto host_end = url.find('/', url.find("://") + 3);
  return {url.substr(0, host_end),
          host_end == std::string::npos ? "/" : url.substr(host_end)};
}

} // namespace

struct fake_whatsapp_cloud::impl {
  mutable std::mutex mx;
  httplib::Server srv;
  std::thread thread;
  int port = 0;
  std::vector<json> sent;
  std::vector<std::string> uploads;
  std::map<std::string, std::pair<std::string, std::string>> media;
  int limited = 0, retry_after = 1, window = 0, send_calls = 0, uploaded = 0;

  bool authorised(const httplib::Request& q, httplib::Response& s) {
    if (q.get_header_value("Authorization")
        == std::string{"Bearer "} + access_token)
      return true;
    s.status = 401;
    s.set_content(graph_error(190, "Invalid OAuth access token - Cannot parse "
                                   "access token").dump(),
                  "application/json");
    return false;
  }
};

fake_whatsapp_cloud::fake_whatsapp_cloud() : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->srv.Post(R"(/v21\.0/(\d+)/messages)", [d](const httplib::Request& q,
                                               httplib::Response& s) {
    if (!d->authorised(q, s))
      return;
    std::lock_guard<std::mutex> g{d->mx};
    ++d->send_calls;
    if (d->limited > 0) {
      --d->limited;
      s.status = 429;
      s.set_header("Retry-After", std::to_string(d->retry_after));
      s.set_content(graph_error(130429, "Rate limit hit").dump(),
                    "application/json");
      return;
    }
    if (d->window > 0) {
      --d->window;
      s.status = 400;
      s.set_content(graph_error(131047, "Re-engagement message").dump(),
                    "application/json");
      return;
    }
    auto b = json::parse(q.body, nullptr, false);
    if (!b.is_object() || b.value("messaging_product", "") != "whatsapp"
        || !b.contains("to") || !b.contains("type")) {
      s.status = 400;
      s.set_content(graph_error(100, "Invalid parameter").dump(),
                    "application/json");
      return;
    }
    d->sent.push_back(b);
    s.set_content(json{{"messaging_product", "whatsapp"},
                       {"contacts", {{{"input", b["to"]}, {"wa_id", b["to"]}}}},
                       {"messages",
                        {{{"id", "wamid.OUT" + std::to_string(d->sent.size())}}}}}
                    .dump(),
                  "application/json");
  });
  d->srv.Post(R"(/v21\.0/(\d+)/media)", [d](const httplib::Request& q,
                                            httplib::Response& s) {
    if (!d->authorised(q, s))
      return;
    if (!q.has_file("file") || q.get_file_value("messaging_product").content
                                 != "whatsapp") {
      s.status = 400;
      s.set_content(graph_error(100, "Invalid parameter").dump(),
                    "application/json");
      return;
    }
    auto f = q.get_file_value("file");
    std::lock_guard<std::mutex> g{d->mx};
    d->uploads.push_back(q.get_file_value("type").content + "|" + f.filename
                         + "|" + f.content);
    s.set_content(json{{"id", "up-" + std::to_string(++d->uploaded)}}.dump(),
                  "application/json");
  });
  d->srv.Get(R"(/cdn/([\w\-.]+))", [d](const httplib::Request& q,
                                       httplib::Response& s) {
    if (!d->authorised(q, s))
      return;
    std::lock_guard<std::mutex> g{d->mx};
    auto it = d->media.find(q.matches[1].str());
    if (it == d->media.end()) {
      s.status = 404;
      return;
    }
    s.set_content(it->second.first, it->second.second);
  });
  d->srv.Get(R"(/v21\.0/([\w\-.]+))", [d](const httplib::Request& q,
                                          httplib::Response& s) {
    if (!d->authorised(q, s))
      return;
    std::lock_guard<std::mutex> g{d->mx};
    std::string id = q.matches[1].str();
    auto it = d->media.find(id);
    if (it == d->media.end()) {
      s.status = 400;
      s.set_content(graph_error(100, "Unsupported get request").dump(),
                    "application/json");
      return;
    }
    s.set_content(json{{"messaging_product", "whatsapp"},
                       {"url", "http://127.0.0.1:" + std::to_string(d->port)
                                 + "/cdn/" + id},
                       {"mime_type", it->second.second},
                       {"sha256", "abc"},
                       {"file_size", std::to_string(it->second.first.size())},
                       {"id", id}}
                    .dump(),
                  "application/json");
  });
  d->srv.set_tcp_nodelay(true);
  d->port = d->srv.bind_to_any_port("127.0.0.1");
  d->thread = std::thread{[d] { d->srv.listen_after_bind(); }};
  while (!d->srv.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_whatsapp_cloud::~fake_whatsapp_cloud() {
  impl_->srv.stop();
  impl_->thread.join();
}

std::string fake_whatsapp_cloud::api_base() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v21.0";
}

json fake_whatsapp_cloud::text_message(const std::string& from,
                                       const std::string& id,
                                       const std::string& text) {
  return envelope(
    {{"contacts", {{{"profile", {{"name", "Kerry"}}}, {"wa_id", from}}}},
     {"messages",
      {{{"from", from},
        {"id", id},
        {"timestamp", "1767225600"},
        {"text", {{"body", text}}},
        {"type", "text"}}}}});
}

json fake_whatsapp_cloud::image_message(const std::string& from,
                                        const std::string& id,
                                        const std::string& media_id,
                                        const std::string& caption) {
  return envelope(
    {{"contacts", {{{"profile", {{"name", "Kerry"}}}, {"wa_id", from}}}},
     {"messages",
      {{{"from", from},
        {"id", id},
        {"timestamp", "1767225601"},
        {"type", "image"},
        {"image", {{"caption", caption},
                   {"mime_type", "image/jpeg"},
                   {"sha256", "abc"},
                   {"id", media_id}}}}}}});
}

json fake_whatsapp_cloud::status(const std::string& id,
                                 const std::string& state,
                                 const std::string& recipient,
                                 int error_code) {
  json st{{"id", id},
          {"status", error_code ? "failed" : state},
          {"timestamp", "1767225700"},
          {"recipient_id", recipient}};
  if (error_code)
    st["errors"] = {{{"code", error_code},
                     {"title", "Re-engagement message"},
                     {"message", "Re-engagement message"},
                     {"error_data",
                      {{"details", "Message failed to send because more than "
                                   "24 hours have passed since the customer "
                                   "last replied to this number."}}}}};
  return envelope({{"statuses", {st}}});
}

int fake_whatsapp_cloud::post_webhook(const std::string& url, const json& body,
                                      const std::string& secret) {
  auto [origin, path] = split_url(url);
  httplib::Client cli{origin};
  cli.set_tcp_nodelay(true);
  auto text = body.dump();
  httplib::Headers headers;
  if (!secret.empty())
    headers.emplace("X-Hub-Signature-256",
                    "sha256=" + chan::to_hex(chan::hmac_sha256(secret, text)));
  auto r = cli.Post(path.c_str(), headers, text, "application/json");
  return r ? r->status : 0;
}

int fake_whatsapp_cloud::verify(const std::string& url,
                                const std::string& token,
                                const std::string& challenge,
                                std::string& body) {
  auto [origin, path] = split_url(url);
  httplib::Client cli{origin};
  auto r = cli.Get((path + "?hub.mode=subscribe&hub.verify_token=" + token
                    + "&hub.challenge=" + challenge)
                     .c_str());
  if (!r)
    return 0;
  body = r->body;
  return r->status;
}

void fake_whatsapp_cloud::add_media(const std::string& id,
                                    const std::string& bytes,
                                    const std::string& mime) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->media[id] = {bytes, mime};
}

void fake_whatsapp_cloud::limit_sends(int n, int retry_after_s) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
  impl_->retry_after = retry_after_s;
}

void fake_whatsapp_cloud::refuse_outside_window(int n) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->window = n;
}

std::vector<json> fake_whatsapp_cloud::sent() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sent;
}

int fake_whatsapp_cloud::send_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->send_calls;
}

std::vector<std::string> fake_whatsapp_cloud::uploads() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->uploads;
}

} // namespace nb::test
