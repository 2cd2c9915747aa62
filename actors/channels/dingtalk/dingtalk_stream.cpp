#include "actors/channels/dingtalk/dingtalk_stream.hpp"

#include <atomic>
#include <deque>
#include <filesystem>
#include <set>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/dingtalk/dingtalk_api.hpp"
#include "actors/channels/dingtalk/dingtalk_frame.hpp"
#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/kit/ws_connection.hpp"
#include "actors/common/log.hpp"

namespace nb::dingtalk {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

/// Sent instead of an answer when private chats are off.
constexpr const char* private_chat_notice
  = "私聊未开放：请在群里 @我。Private chat is turned off here: mention me in "
    "a group instead.";

class stream_loop final : public chan::inbound_loop {
public:
  stream_loop(dingtalk_config cfg, chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)), api_(cfg_) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~stream_loop() override {
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

  /// The WebSocket URL with a fresh ticket, or "" (last_error_ says why).
  std::string open_connection() {
    chan::http_endpoint http{cfg_.api_base};
    json body{{"clientId", cfg_.client_id},
              {"clientSecret", cfg_.client_secret},
              {"subscriptions",
               json::array({{{"type", "CALLBACK"}, {"topic", bot_topic}}})},
              {"ua", "nanobot-cpp"}};
    auto r = http.call("POST", "/v1.0/gateway/connections/open", body.dump(),
                       {{"Accept", "application/json"}},
                       std::chrono::seconds(15));
    if (r.ok() && r.json.is_object()) {
      auto endpoint = r.json.value("endpoint", json{});
      auto ticket = r.json.value("ticket", json{});
      if (endpoint.is_string() && ticket.is_string())
        return endpoint.get<std::string>()
               + (endpoint.get<std::string>().find('?') == std::string::npos
                    ? "?" : "&")
               + "ticket=" + chan::url_encode(ticket.get<std::string>());
    }
    last_error_ = "connections/open: " + describe(r);
    // DingTalk answers bad credentials with 400/401/403; nothing a retry
    // could mend.
    if (r.status == 400 || r.status == 401 || r.status == 403) {
      fatal_ = true;
      last_error_ = "channels." + cfg_.name + ".clientId/clientSecret: "
                    "refused by DingTalk (" + describe(r) + ")";
    }
    return "";
  }

  void run() {
    int fails = 0;
    while (!stop_.stopping() && !fatal_) {
      report("connecting", "");
      if (auto url = open_connection(); !url.empty() && session(url))
        fails = 0;
      if (stop_.stopping())
        break;
      if (fatal_) {
        report("error", last_error_);
        break;
      }
      if (refresh_) { // DingTalk asked us to reconnect: no waiting
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

  /// One connection; true when it was established.
  bool session(const std::string& url) {
    if (auto err = ws_.connect(url, std::chrono::seconds(15)); !err.empty()) {
      last_error_ = "stream: " + err;
      return false;
    }
    report("connected", cfg_.client_id);
    while (!stop_.stopping()) {
      auto text = ws_.read(milliseconds(1000));
      if (!text) {
        if (!ws_.is_open()) {
          last_error_ = "connection closed: " + ws_.close_reason();
          return true;
        }
        continue;
      }
      std::string why;
      auto f = read_frame(*text, why);
      if (!f) {
        lg_->warn("malformed Stream frame skipped ({}): {}", why,
                  text->substr(0, 200));
        continue;
      }
      if (f->type == "SYSTEM") {
        if (f->topic == "ping") {
          ws_.send(pong_frame(*f));
        } else if (f->topic == "disconnect") {
          last_error_ = "disconnect: " + f->data.substr(0, 200);
          lg_->info("DingTalk asked for a new connection: {}",
                    f->data.substr(0, 200));
          refresh_ = true;
          ws_.close(1000);
          return true;
        } else {
          lg_->debug("SYSTEM {} frame", f->topic);
        }
        continue;
      }
      bool kept = true;
      if (f->type == "CALLBACK" && f->topic == bot_topic)
        kept = handle(f->data);
      else
        lg_->debug("{} frame on topic {} acknowledged, not used", f->type,
                   f->topic);
      // Acknowledged once the message is in the inbox journal: before
      // that, a crash or a drop means DingTalk sends it again.
      if (kept)
        ws_.send(ack_frame(*f));
    }
    return true;
  }

  /// Saves the message's files and notes them in its text.
  void fetch_media(bot_message& b) {
    std::error_code ec;
    std::filesystem::create_directories(cfg_.media_dir, ec);
    auto id = json::parse(b.msg.metadata_json).value("_message_id", "");
    for (size_t i = 0; i < b.media.size(); ++i) {
      const auto& m = b.media[i];
      auto name = std::filesystem::path(m.file_name).filename().string();
      if (name.empty() || name == "." || name == "..")
        name = m.kind == "image" ? "image.jpg" : m.kind;
      auto dest = cfg_.media_dir + "/"
                  + chan::safe_media_name(id + "_" + std::to_string(i) + "_"
                                          + name);
      auto err = api_.download(m.download_code, dest, cfg_.max_media_bytes);
      if (!err.empty()) {
        lg_->warn("could not fetch {} of message {}: {}", m.kind, id, err);
        chan::add_note(b.msg.content, "[" + m.kind + ": " + name
                                        + " unavailable (" + err + ")]");
        continue;
      }
      b.msg.media.push_back(dest);
      chan::add_note(b.msg.content, chan::media_tag(dest));
    }
  }

  /// False when the message could not be journaled (not acknowledged).
  bool handle(const std::string& data) {
    std::string why;
    auto b = read_bot_message(data, cfg_, why);
    if (!b) {
      // Acknowledged all the same: sent again, it would not read better.
      if (why.rfind("malformed", 0) == 0)
        lg_->warn("{}: skipped", why);
      else
        lg_->debug("{}: skipped", why);
      return true;
    }
    auto key = json::parse(b->msg.metadata_json).value("_message_id", "");
    if (seen_.count(key))
      return true;
    if (!b->is_group && cfg_.disable_private_chat) {
      lg_->info("private chat is off: notice sent to {}", b->msg.sender_id);
      outbound_msg notice;
      notice.channel = cfg_.name;
      notice.chat_id = b->msg.chat_id;
      notice.session_key = cfg_.name + ":" + b->msg.chat_id;
      notice.kind = outbound_kind::final_reply;
      notice.content = private_chat_notice;
      caf::anon_send(front_, std::move(notice));
      remember(key);
      return true;
    }
    if (!b->media.empty())
      fetch_media(*b);
    if (auto why = chan::hand_over_one(front_, std::move(b->msg));
        !why.empty()) {
      lg_->warn("message not acknowledged to DingTalk (it comes again): {}",
                why);
      report("error", "inbox: " + why);
      return false;
    }
    remember(key);
    return true;
  }

  void remember(const std::string& key) {
    seen_.insert(key);
    order_.push_back(key);
    if (order_.size() > 1000) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
  }

  dingtalk_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  openapi api_;
  chan::ws_connection ws_;
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
start_stream(dingtalk_config cfg, chan::adapter_front_actor front) {
  return std::make_unique<stream_loop>(std::move(cfg), std::move(front));
}

} // namespace nb::dingtalk
