#include "actors/channels/kit/op_gateway.hpp"

#include <atomic>
#include <random>
#include <thread>

#include <caf/send.hpp>

#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/kit/ws_connection.hpp"
#include "actors/common/log.hpp"

namespace nb::chan {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

class op_gateway final : public inbound_loop {
public:
  op_gateway(gateway_protocol proto, adapter_front_actor front)
    : p_(std::move(proto)), front_(std::move(front)),
      lg_(log::get("channel." + p_.name)) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~op_gateway() override {
    stop_.request();
    while (!done_.load()) {
      ws_.interrupt();
      std::this_thread::sleep_for(milliseconds(10));
    }
    thread_.join();
  }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, adapter_report{state, detail});
  }

  void run() {
    int fails = 0;
    while (!stop_.stopping() && !fatal_) {
      report("connecting", "");
      std::string base = resume_url_.empty() || session_id_.empty()
                           ? p_.gateway_url(last_error_, fatal_)
                           : resume_url_;
      if (!base.empty() && !fatal_) {
        url_ = base;
        if (!p_.query.empty())
          base += (base.find('?') == std::string::npos
                     ? (base.back() == '/' ? "?" : "/?") : "&")
                  + p_.query;
        session(base);
      }
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

  /// Identify, or Resume when a session can go on; false when neither.
  bool introduce() {
    std::string error;
    json d = session_id_.empty()
               ? p_.identify(error, fatal_)
               : p_.resume(session_id_, seq_, error, fatal_);
    if (!error.empty()) {
      last_error_ = error;
      ws_.close(fatal_ ? 1000 : 4000);
      return false;
    }
    return send({{"op", session_id_.empty() ? 2 : 6}, {"d", d}});
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
        || !h["d"].value("heartbeat_interval", json{}).is_number()
        || h["d"]["heartbeat_interval"].get<double>() < 1) {
      last_error_ = "no Hello from the gateway";
      ws_.close(4000);
      return;
    }
    auto interval = milliseconds(h["d"]["heartbeat_interval"].get<int64_t>());
    if (!introduce())
      return;
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
          // Not 1000/1001: the platform keeps the session for a Resume.
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
          if (!resumable)
            forget_session();
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

  void forget_session() {
    session_id_.clear();
    resume_url_.clear();
    seq_ = 0;
  }

  void closed() {
    int code = ws_.close_code();
    last_error_ = "connection closed"
                  + (code ? " (" + std::to_string(code) + " "
                              + ws_.close_reason() + ")"
                          : ": " + ws_.close_reason());
    if (p_.fatal_close && p_.fatal_close(code))
      fatal_ = true;
    if (p_.session_lost_close && p_.session_lost_close(code))
      forget_session();
  }

  void dispatch(const json& msg) {
    // The platform's side reads payloads it cannot fully trust: a type it
    // did not expect is logged and skipped, never the end of the thread.
    try {
      dispatch_checked(msg);
    } catch (const std::exception& e) {
      lg_->warn("malformed dispatch ignored: {}", e.what());
    }
  }

  void dispatch_checked(const json& msg) {
    auto type = msg.value("t", json{}).is_string()
                  ? msg["t"].get<std::string>() : "";
    const json d = msg.value("d", json{});
    int64_t s = 0;
    bool sequenced = msg.contains("s") && msg["s"].is_number_integer();
    if (sequenced) {
      s = msg["s"].get<int64_t>();
      if (s <= seq_ && type != "READY" && type != "RESUMED")
        return; // replayed after a Resume and seen before
    }
    if (type == "READY") {
      if (!d.is_object() || !d.value("session_id", json{}).is_string()) {
        lg_->warn("malformed READY ignored");
        return;
      }
      session_id_ = d["session_id"].get<std::string>();
      auto r = p_.ready(d);
      resume_url_ = r.resume_url.empty() ? url_ : r.resume_url;
      ready_ = true;
      seq_ = std::max(seq_, s);
      report("connected", r.detail);
      return;
    }
    if (type == "RESUMED") {
      ready_ = true;
      seq_ = std::max(seq_, s);
      report("connected", "resumed");
      return;
    }
    if (p_.dispatch(type, d))
      seq_ = std::max(seq_, s);
    else
      report("error", "an event was not taken in; a Resume sends it again");
  }

  gateway_protocol p_;
  adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  ws_connection ws_;
  std::string url_;
  std::string session_id_;
  std::string resume_url_;
  int64_t seq_ = 0;
  bool ready_ = false;
  bool fatal_ = false;
  std::string last_error_;
  std::mt19937 rng_{std::random_device{}()};
  stop_flag stop_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<inbound_loop> start_op_gateway(gateway_protocol proto,
                                               adapter_front_actor front) {
  return std::make_unique<op_gateway>(std::move(proto), std::move(front));
}

} // namespace nb::chan
