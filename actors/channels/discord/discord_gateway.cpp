#include "actors/channels/discord/discord_gateway.hpp"

#include <atomic>
#include <random>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/discord/discord_event.hpp"
#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/kit/ws_connection.hpp"
#include "actors/common/log.hpp"

namespace nb::discord {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

bool fatal_close(int code) {
  return code == 4004 || (code >= 4010 && code <= 4014);
}

class gateway final : public chan::inbound_loop {
public:
  gateway(discord_config cfg, chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)) {
    view_.allow_channels = cfg_.allow_channels;
    thread_ = std::thread{[this] { run(); }};
  }

  ~gateway() override {
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

  std::string gateway_url() {
    if (!cfg_.gateway_url.empty())
      return cfg_.gateway_url;
    chan::http_endpoint http{cfg_.api_base};
    auto r = http.call("GET", "/gateway/bot", "",
                       {{"Authorization", "Bot " + cfg_.token}},
                       std::chrono::seconds(15));
    if (r.ok() && r.json.is_object() && r.json.contains("url")
        && r.json["url"].is_string())
      return r.json["url"].get<std::string>();
    last_error_ = "GET /gateway/bot: "
                  + (r.status ? "HTTP " + std::to_string(r.status) + " "
                                  + r.body.substr(0, 200)
                              : r.error);
    fatal_ = r.status == 401;
    return "";
  }

  void run() {
    int fails = 0;
    while (!stop_.stopping() && !fatal_) {
      report("connecting", "");
      std::string base = resume_url_.empty() || session_id_.empty()
                           ? gateway_url() : resume_url_;
      if (!base.empty())
        session(base + (base.find('?') == std::string::npos ? "/?" : "&")
                + "v=10&encoding=json");
      if (stop_.stopping())
        break;
      if (fatal_) {
        report("error", last_error_);
        break;
      }
      report("disconnected", last_error_);
      if (ready_)
        fails = 0;
      ready_ = false;
      auto wait = milliseconds(std::min(30000, 250 << std::min(fails++, 7)));
      if (!stop_.sleep_for(wait))
        break;
    }
    ws_.close(1000);
    done_ = true;
  }

  bool send(const json& j) {
    auto err = ws_.send(j.dump());
    if (!err.empty())
      last_error_ = err;
    return err.empty();
  }

  /// One connection: handshake, then events until it ends.
  void session(const std::string& url) {
    if (auto err = ws_.connect(url, std::chrono::seconds(15)); !err.empty()) {
      last_error_ = err;
      return;
    }
    auto hello = ws_.read(milliseconds(15000));
    auto h = hello ? json::parse(*hello, nullptr, false) : json{};
    if (!h.is_object() || h.value("op", -1) != 10 || !h.contains("d")
        || !h["d"].is_object()
        || !h["d"].value("heartbeat_interval", json{}).is_number()) {
      last_error_ = "no HELLO from the gateway";
      ws_.close(4000);
      return;
    }
    auto interval = milliseconds(h["d"]["heartbeat_interval"].get<int64_t>());
    if (!session_id_.empty()) {
      send({{"op", 6},
            {"d", {{"token", cfg_.token}, {"session_id", session_id_},
                   {"seq", seq_}}}});
    } else {
      send({{"op", 2},
            {"d", {{"token", cfg_.token},
                   {"intents", cfg_.intents},
                   {"properties", {{"os", "linux"}, {"browser", "nanobot"},
                                   {"device", "nanobot"}}}}}});
    }
    std::uniform_real_distribution<double> jitter{0.0, 1.0};
    auto next_beat = steady::now()
                     + milliseconds(static_cast<int64_t>(
                       interval.count() * jitter(rng_)));
    bool acked = true;
    while (!stop_.stopping()) {
      auto now = steady::now();
      if (now >= next_beat) {
        if (!acked) {
          last_error_ = "heartbeat not acknowledged; reconnecting";
          lg_->warn("{}", last_error_);
          // Not 1000/1001: Discord keeps the session for a RESUME.
          ws_.close(4000, "zombied connection");
          return;
        }
        if (!send({{"op", 1}, {"d", seq_ ? json(seq_) : json(nullptr)}}))
          return;
        acked = false;
        next_beat = now + interval;
        continue;
      }
      auto text = ws_.read(
        std::chrono::duration_cast<milliseconds>(next_beat - now));
      if (!text) {
        if (!ws_.is_open()) {
          closed();
          return;
        }
        continue;
      }
      auto msg = json::parse(*text, nullptr, false);
      if (!msg.is_object() || !msg.contains("op")
          || !msg["op"].is_number_integer()) {
        lg_->warn("malformed gateway payload ignored: {}",
                  text->substr(0, 200));
        continue;
      }
      switch (msg["op"].get<int>()) {
        case 0:
          dispatch(msg);
          break;
        case 1: // the gateway asks for a beat now
          next_beat = steady::now();
          acked = true;
          break;
        case 7:
          last_error_ = "gateway asked to reconnect";
          ws_.close(4000);
          return;
        case 9: {
          bool resumable = msg.value("d", false) == true;
          last_error_ = "invalid session";
          if (!resumable) {
            session_id_.clear();
            resume_url_.clear();
            seq_ = 0;
          }
          ws_.close(resumable ? 4000 : 1000);
          return;
        }
        case 11:
          acked = true;
          break;
        default:
          break;
      }
    }
  }

  void closed() {
    int code = ws_.close_code();
    last_error_ = "connection closed"
                  + (code ? " (" + std::to_string(code) + " "
                              + ws_.close_reason() + ")"
                          : ": " + ws_.close_reason());
    if (fatal_close(code))
      fatal_ = true;
    if (code == 4007 || code == 4009) { // bad sequence, session timed out
      session_id_.clear();
      seq_ = 0;
    }
  }

  void dispatch(const json& msg) {
    auto type = msg.value("t", json{}).is_string()
                  ? msg["t"].get<std::string>() : "";
    const json d = msg.value("d", json{});
    int64_t s = 0;
    if (msg.contains("s") && msg["s"].is_number_integer()) {
      s = msg["s"].get<int64_t>();
      if (s <= seq_ && type != "READY" && type != "RESUMED")
        return; // replayed after a RESUME and seen before
      // A message event moves the sequence (what heartbeats and a RESUME
      // confirm) only once it is in the inbox journal.
      if (type != "MESSAGE_CREATE")
        seq_ = std::max(seq_, s);
    }
    if (type == "READY") {
      if (!d.is_object()) {
        lg_->warn("malformed READY ignored");
        return;
      }
      session_id_ = d.value("session_id", "");
      resume_url_ = d.value("resume_gateway_url", "");
      auto user = d.value("user", json::object());
      view_.bot_id = user.is_object() ? user.value("id", "") : "";
      ready_ = true;
      report("connected", "as " + (user.is_object()
                                     ? user.value("username", "?") : "?"));
      return;
    }
    if (type == "RESUMED") {
      ready_ = true;
      report("connected", "resumed");
      return;
    }
    note_threads(view_, type, d);
    if (type != "MESSAGE_CREATE")
      return;
    std::string why;
    auto in = parse_message(d, view_, cfg_.name, why);
    if (!in) {
      if (why == "malformed MESSAGE_CREATE")
        lg_->warn("{} ignored", why);
      seq_ = std::max(seq_, s);
      return;
    }
    if (auto why = chan::hand_over_one(front_, std::move(*in));
        !why.empty()) {
      // Not confirmed: a RESUME from the last sequence replays it.
      lg_->warn("message not confirmed (a RESUME replays it): {}", why);
      report("error", "inbox: " + why);
      return;
    }
    seq_ = std::max(seq_, s);
  }

  discord_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  chan::ws_connection ws_;
  gateway_view view_;
  std::string session_id_;
  std::string resume_url_;
  int64_t seq_ = 0;
  bool ready_ = false;
  bool fatal_ = false;
  std::string last_error_;
  std::mt19937 rng_{std::random_device{}()};
  chan::stop_flag stop_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_gateway(discord_config cfg, chan::adapter_front_actor front) {
  return std::make_unique<gateway>(std::move(cfg), std::move(front));
}

} // namespace nb::discord
