#include "actors/channels/feishu/feishu_socket.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/feishu/feishu_api.hpp"
#include "actors/channels/feishu/feishu_frame.hpp"
#include "actors/channels/feishu/feishu_intake.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/kit/ws_connection.hpp"
#include "actors/common/clock.hpp"
#include "actors/common/log.hpp"

namespace nb::feishu {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// Codes of /callback/ws/endpoint worth trying again (lark-oapi's
// SYSTEM_BUSY and INTERNAL_ERROR); the others mean our request is wrong.
bool server_side(int64_t code) {
  return code == 1 || code == 1000040343;
}

/// The value of `key` in the URL's query ("" when absent).
std::string query_value(const std::string& url, const std::string& key) {
  auto q = url.find('?');
  while (q != std::string::npos) {
    auto start = q + 1;
    auto end = url.find('&', start);
    auto pair = url.substr(start, end == std::string::npos ? end : end - start);
    if (pair.rfind(key + "=", 0) == 0)
      return pair.substr(key.size() + 1);
    q = end;
  }
  return "";
}

int to_int(const std::string& s, int def) {
  try {
    return s.empty() ? def : std::stoi(s);
  } catch (const std::exception&) {
    return -1;
  }
}

class socket_loop final : public chan::inbound_loop {
public:
  socket_loop(feishu_config cfg, chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)), api_(cfg_, &stop_),
      intake_(cfg_, front_, api_, lg_) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~socket_loop() override {
    stop_.request();
    while (!done_.load()) {
      ws_.interrupt();
      api_.abort();
      std::this_thread::sleep_for(milliseconds(10));
    }
    thread_.join();
  }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  /// Takes the long connection's settings (seconds) from ClientConfig.
  void configure(const json& conf) {
    if (!conf.is_object())
      return;
    auto seconds = [&](const char* key, int64_t def) {
      auto it = conf.find(key);
      return it != conf.end() && it->is_number_integer()
               ? it->get<int64_t>() : def;
    };
    ping_ms_ = std::clamp<int64_t>(seconds("PingInterval", ping_ms_ / 1000),
                                   1, 3600) * 1000;
    retry_cap_ms_ = std::clamp<int64_t>(
      seconds("ReconnectInterval", retry_cap_ms_ / 1000), 1, 30) * 1000;
  }

  /// The socket URL, or "" with last_error_ (and fatal_) set.
  std::string endpoint() {
    auto r = api_.call_without_token(
      "POST", "/callback/ws/endpoint",
      json{{"AppID", cfg_.app_id}, {"AppSecret", cfg_.app_secret}});
    const auto& data = r.body.is_object() && r.body.contains("data")
                         ? r.body["data"] : json{};
    if (r.status == 200 && r.code == 0 && data.is_object()
        && data.value("URL", json{}).is_string()) {
      configure(data.value("ClientConfig", json{}));
      return data["URL"].get<std::string>();
    }
    last_error_ = "callback/ws/endpoint: " + r.describe();
    if (r.status == 200 && r.code > 0 && !server_side(r.code)) {
      fatal_ = true;
      last_error_ = "channels." + cfg_.name + ".appId/appSecret: refused ("
                    + last_error_ + ")";
    }
    return "";
  }

  /// The bot's own open_id, for mention checks (best effort).
  void who_am_i() {
    auto r = api_.call("GET", "/open-apis/bot/v3/info");
    if (api_.credentials_rejected()) {
      fatal_ = true;
      last_error_ = "channels." + cfg_.name + ".appId/appSecret: refused ("
                    + r.describe() + ")";
      return;
    }
    const auto& bot = r.body.is_object() && r.body.contains("bot")
                        ? r.body["bot"] : json{};
    auto id = bot.is_object() ? bot.value("open_id", "") : std::string{};
    if (id.empty()) {
      lg_->warn("bot/v3/info: {}; mentions are guessed", r.describe());
      return;
    }
    bot_open_id_ = id;
    intake_.set_bot(id);
  }

  void run() {
    int fails = 0;
    while (!stop_.stopping() && !fatal_) {
      report("connecting", cfg_.api_base);
      auto url = endpoint();
      if (!url.empty() && bot_open_id_.empty())
        who_am_i();
      if (!url.empty() && !fatal_ && session(url))
        fails = 0;
      if (stop_.stopping())
        break;
      if (fatal_) {
        report("error", last_error_);
        break;
      }
      report("disconnected", last_error_);
      auto wait = std::min<int64_t>(retry_cap_ms_, 250 << std::min(fails++, 7));
      if (!stop_.sleep_for(milliseconds(wait)))
        break;
    }
    ws_.close(1000);
    done_ = true;
  }

  /// One connection; true when frames came on it.
  bool session(const std::string& url) {
    auto service = to_int(query_value(url, "service_id"), 0);
    if (auto err = ws_.connect(url, std::chrono::seconds(15)); !err.empty()) {
      // The URL carries a ticket and an access key: never in logs.
      last_error_ = err.rfind("not a ws", 0) == 0
                      ? "the endpoint's URL is not ws:// or wss://" : err;
      return false;
    }
    report("connected", bot_open_id_.empty() ? cfg_.app_id : bot_open_id_);
    bool heard = false;
    int64_t next_ping = 0;
    while (!stop_.stopping()) {
      auto now = steady_ms();
      if (now >= next_ping) {
        if (auto err = ws_.send_binary(encode(ping_frame(service)));
            !err.empty())
          lg_->warn("ping not sent: {}", err);
        next_ping = now + ping_ms_;
      }
      auto bytes = ws_.read(milliseconds(std::min<int64_t>(
        1000, std::max<int64_t>(next_ping - now, 1))));
      if (!bytes) {
        if (!ws_.is_open()) {
          last_error_ = "connection closed: " + ws_.close_reason();
          return heard;
        }
        continue;
      }
      heard = true;
      std::string err;
      auto f = decode(*bytes, err);
      if (!f) {
        lg_->warn("malformed frame skipped ({} bytes): {}", bytes->size(), err);
        continue;
      }
      if (f->method == static_cast<int32_t>(frame_method::control))
        control(*f);
      else if (f->method == static_cast<int32_t>(frame_method::data))
        data(std::move(*f));
      else
        lg_->warn("frame with method {} skipped", f->method);
    }
    return heard;
  }

  void control(const frame& f) {
    if (f.header("type") != "pong" || f.payload.empty())
      return;
    auto conf = json::parse(f.payload, nullptr, false);
    if (conf.is_object())
      configure(conf);
    else
      lg_->warn("pong with a malformed ClientConfig skipped");
  }

  void data(frame f) {
    auto start = steady_ms();
    auto id = f.header("message_id");
    auto sum = to_int(f.header("sum"), 1);
    auto seq = to_int(f.header("seq"), 0);
    if (id.empty()) {
      lg_->warn("data frame without message_id skipped");
      return;
    }
    std::string err;
    auto whole = joiner_.add(id, sum, seq, std::move(f.payload), start, err);
    if (!whole) {
      if (!err.empty())
        lg_->warn("data frame {} skipped: {}", id, err);
      return; // more parts to come; the last one is acknowledged
    }
    intake::outcome done;
    done.ack = 200;
    if (f.header("type") == "event")
      done = intake_.take(*whole);
    if (!done.ack) {
      report("error", "inbox: " + done.problem);
      inbox_trouble_ = true;
      return;
    }
    if (inbox_trouble_) {
      inbox_trouble_ = false;
      report("connected", bot_open_id_.empty() ? cfg_.app_id : bot_open_id_);
    }
    auto ack = ack_frame(std::move(f), *done.ack, steady_ms() - start);
    if (auto e = ws_.send_binary(encode(ack)); !e.empty())
      lg_->warn("ack of {} not sent (it comes again): {}", id, e);
    if (!done.react_to.empty())
      intake_.react(done.react_to);
  }

  feishu_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  chan::stop_flag stop_;
  open_api api_;
  intake intake_;
  chan::ws_connection ws_;
  fragment_joiner joiner_;
  std::string bot_open_id_;
  std::string last_error_;
  int64_t ping_ms_ = 120000;      ///< lark-oapi's default PingInterval
  int64_t retry_cap_ms_ = 30000;
  bool fatal_ = false;
  bool inbox_trouble_ = false;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_socket(feishu_config cfg, chan::adapter_front_actor front) {
  return std::make_unique<socket_loop>(std::move(cfg), std::move(front));
}

} // namespace nb::feishu
