#include "actors/channels/slack/slack_socket.hpp"

#include <atomic>
#include <deque>
#include <set>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/kit/ws_connection.hpp"
#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/slack/slack_event.hpp"
#include "actors/common/log.hpp"

namespace nb::slack {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

bool fatal_error(const std::string& e) {
  return e == "invalid_auth" || e == "not_authed" || e == "account_inactive"
         || e == "not_allowed_token_type" || e == "token_revoked";
}

class socket_loop final : public chan::inbound_loop {
public:
  socket_loop(slack_config cfg, chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~socket_loop() override {
    stop_.request();
    while (!done_.load()) {
      ws_.interrupt();
      std::this_thread::sleep_for(milliseconds(10));
    }
    thread_.join();
  }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  /// A Web API call; fills last_error_ and fatal_ on failure.
  json web(const std::string& method, const std::string& token) {
    chan::http_endpoint http{cfg_.api_base};
    auto r = http.call("POST", "/" + method, "{}",
                       {{"Authorization", "Bearer " + token}},
                       std::chrono::seconds(15),
                       "application/json; charset=utf-8");
    if (r.ok() && r.json.is_object() && r.json.value("ok", false) == true)
      return r.json;
    std::string err = r.json.is_object() ? r.json.value("error", "") : "";
    last_error_ = method + ": "
                  + (!err.empty() ? err
                     : r.status   ? "HTTP " + std::to_string(r.status)
                                  : r.error);
    fatal_ = fatal_error(err);
    return json{};
  }

  void run() {
    int fails = 0;
    while (!stop_.stopping() && !fatal_) {
      report("connecting", "");
      if (bot_user_.empty()) {
        auto me = web("auth.test", cfg_.bot_token);
        bot_user_ = me.is_object() ? me.value("user_id", "") : "";
      }
      if (!bot_user_.empty()) {
        auto open = web("apps.connections.open", cfg_.app_token);
        if (open.is_object() && open.contains("url")
            && open["url"].is_string()) {
          if (session(open["url"].get<std::string>()))
            fails = 0;
        }
      }
      if (stop_.stopping())
        break;
      if (fatal_) {
        report("error", last_error_);
        break;
      }
      if (refresh_) { // Slack asked for a new connection: no waiting
        refresh_ = false;
        continue;
      }
      report("disconnected", last_error_);
      auto wait = milliseconds(std::min(30000, 250 << std::min(fails++, 7)));
      if (!stop_.sleep_for(wait))
        break;
    }
    ws_.close(1000);
    done_ = true;
  }

  /// One connection; true when it got as far as "hello".
  bool session(const std::string& url) {
    if (auto err = ws_.connect(url, std::chrono::seconds(15)); !err.empty()) {
      last_error_ = err;
      return false;
    }
    bool hello = false;
    while (!stop_.stopping()) {
      auto text = ws_.read(milliseconds(1000));
      if (!text) {
        if (!ws_.is_open()) {
          last_error_ = "connection closed: " + ws_.close_reason();
          return hello;
        }
        continue;
      }
      auto msg = json::parse(*text, nullptr, false);
      if (!msg.is_object()) {
        lg_->warn("malformed Socket Mode frame ignored: {}",
                  text->substr(0, 200));
        continue;
      }
      auto type = msg.value("type", json{}).is_string()
                    ? msg["type"].get<std::string>() : "";
      if (type == "hello") {
        hello = true;
        report("connected", "as " + bot_user_);
        continue;
      }
      if (type == "disconnect") {
        last_error_ = "disconnect: " + msg.value("reason", std::string{"?"});
        refresh_ = true;
        ws_.close(1000);
        return hello;
      }
      auto id = msg.value("envelope_id", json{});
      bool kept = true;
      if (type == "events_api")
        kept = handle(msg.value("payload", json{}));
      else if (!id.is_string())
        lg_->warn("Socket Mode frame of type \"{}\" ignored", type);
      // Acknowledged once the message is in the inbox journal: a crash
      // before it means Slack sends the envelope again (a retry of one we
      // kept is recognised by the inbox).
      if (id.is_string() && kept)
        ws_.send(json{{"envelope_id", id}}.dump());
    }
    return hello;
  }

  /// False when the message could not be journaled (not acknowledged).
  bool handle(const json& payload) {
    std::string key, why;
    auto in = parse_event(payload, bot_user_, cfg_.name,
                          cfg_.reply_in_thread, key, why);
    if (!in) {
      if (why.rfind("malformed", 0) == 0)
        lg_->warn("{} ignored", why);
      return true;
    }
    if (seen_.count(key))
      return true;
    if (auto why = chan::hand_over_one(front_, std::move(*in));
        !why.empty()) {
      lg_->warn("event not acknowledged to Slack (it comes again): {}", why);
      report("error", "inbox: " + why);
      return false;
    }
    seen_.insert(key);
    order_.push_back(key);
    if (order_.size() > 1000) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }

  slack_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  chan::ws_connection ws_;
  std::string bot_user_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;
  std::string last_error_;
  bool fatal_ = false;
  bool refresh_ = false;
  chan::stop_flag stop_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_socket(slack_config cfg, chan::adapter_front_actor front) {
  return std::make_unique<socket_loop>(std::move(cfg), std::move(front));
}

} // namespace nb::slack
