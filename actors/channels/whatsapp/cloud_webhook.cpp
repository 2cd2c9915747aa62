#include "actors/channels/whatsapp/cloud_webhook.hpp"

#include <deque>
#include <map>
#include <mutex>
#include <set>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/http/http_listener.hpp"
#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/whatsapp/cloud_payload.hpp"
#include "actors/channels/whatsapp/graph_api.hpp"
#include "actors/common/log.hpp"

namespace nb::whatsapp {

namespace {

using nlohmann::json;

class webhook final : public chan::inbound_loop {
public:
  webhook(whatsapp_config cfg, chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)), listener_("whatsapp webhook") {
    auto& srv = listener_.server();
    srv.Get(cfg_.webhook_path,
            [this](const httplib::Request& q, httplib::Response& s) {
              verify(q, s);
            });
    srv.Post(cfg_.webhook_path,
             [this](const httplib::Request& q, httplib::Response& s) {
               receive(q, s);
             });
    try {
      auto port = listener_.start(cfg_.webhook_host, cfg_.webhook_port, 4);
      where_ = "webhook on http://" + cfg_.webhook_host + ":"
               + std::to_string(port) + cfg_.webhook_path;
      report("connected", where_);
    } catch (const std::exception& e) {
      report("error", "channels." + cfg_.name + ".webhookPort: " + e.what());
    }
  }

  ~webhook() override { listener_.stop(); }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  void verify(const httplib::Request& q, httplib::Response& s) {
    if (q.get_param_value("hub.mode") == "subscribe"
        && q.get_param_value("hub.verify_token") == cfg_.verify_token
        && q.has_param("hub.challenge")) {
      lg_->info("webhook subscription verified");
      s.set_content(q.get_param_value("hub.challenge"), "text/plain");
      return;
    }
    lg_->warn("webhook verification refused (wrong hub.verify_token or "
              "hub.mode)");
    s.status = 403;
    s.set_content("verification failed", "text/plain");
  }

  void receive(const httplib::Request& q, httplib::Response& s) {
    if (!signature_valid(cfg_.app_secret, q.body,
                         q.get_header_value("X-Hub-Signature-256"))) {
      lg_->warn("webhook POST with a missing or wrong X-Hub-Signature-256 "
                "refused ({} bytes)", q.body.size());
      s.status = 401;
      s.set_content("bad signature", "text/plain");
      return;
    }
    auto body = json::parse(q.body, nullptr, false);
    auto batch = read_webhook(body, cfg_.name);
    if (!batch.malformed.empty()) {
      lg_->warn("malformed webhook payload skipped: {}", batch.malformed);
      s.status = 400;
      s.set_content("malformed payload", "text/plain");
      return;
    }
    for (auto& why : batch.skipped)
      lg_->debug("webhook item skipped: {}", why);
    count(batch.statuses);
    std::vector<inbound_msg> fresh;
    std::vector<std::string> ids;
    for (auto& m : batch.messages) {
      if (already_taken(m.message_id))
        continue; // Meta sent it again; the inbox would also know it
      if (!m.media_id.empty())
        fetch(m);
      ids.push_back(m.message_id);
      fresh.push_back(std::move(m.msg));
    }
    auto done = chan::hand_over(front_, std::move(fresh));
    for (size_t i = 0; i < done.recorded; ++i)
      remember(ids[i]);
    if (done.recorded < ids.size()) {
      lg_->warn("webhook messages not journaled ({}); Meta will send them "
                "again", done.error);
      s.status = 500;
      s.set_content("try again", "text/plain");
      return;
    }
    s.set_content("OK", "text/plain");
  }

  void fetch(cloud_message& m) {
    std::string err;
    graph_api graph{cfg_};
    auto path = graph.download(m.media_id, m.media_mime, m.media_name, err);
    if (path.empty()) {
      lg_->warn("attachment of message {} left out: {}", m.message_id, err);
      chan::add_note(m.msg.content, "[file unavailable: " + err + "]");
      return;
    }
    m.msg.media.push_back(path);
    chan::add_note(m.msg.content, chan::media_tag(path));
  }

  void count(const std::vector<cloud_status>& statuses) {
    if (statuses.empty())
      return;
    std::string detail;
    {
      std::lock_guard<std::mutex> g{mx_};
      for (const auto& st : statuses) {
        ++counts_[st.status.empty() ? "unknown" : st.status];
        if (st.status == "failed") {
          last_failure_ = st.recipient + ": " + st.error_text;
          lg_->warn("WhatsApp could not deliver {} to {}: {}", st.message_id,
                    st.recipient, st.error_text);
        }
      }
      detail = where_ + "; statuses:";
      for (auto& [k, n] : counts_)
        detail += " " + k + " " + std::to_string(n);
      if (!last_failure_.empty())
        detail += "; last failure " + last_failure_;
    }
    report("connected", detail);
  }

  bool already_taken(const std::string& id) {
    std::lock_guard<std::mutex> g{mx_};
    return seen_.count(id) > 0;
  }

  void remember(const std::string& id) {
    std::lock_guard<std::mutex> g{mx_};
    if (!seen_.insert(id).second)
      return;
    order_.push_back(id);
    if (order_.size() > 1000) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
  }

  whatsapp_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  std::string where_;
  std::mutex mx_; ///< the pool threads share the counts and the seen ids
  std::map<std::string, int64_t> counts_;
  std::string last_failure_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;
  // Last: stopped (its threads joined) before the rest goes.
  http_listener listener_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_webhook(whatsapp_config cfg, chan::adapter_front_actor front) {
  return std::make_unique<webhook>(std::move(cfg), std::move(front));
}

} // namespace nb::whatsapp
