#include "actors/channels/whatsapp/bridge_link.hpp"

#include <atomic>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <caf/send.hpp>

#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/kit/ws_connection.hpp"
#include "actors/channels/whatsapp/bridge_frames.hpp"
#include "actors/common/log.hpp"
#include "actors/common/strings.hpp"

namespace nb::whatsapp {

namespace {

using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

/// How long a command may wait for the bridge's answer before the
/// connection stops holding it (the sender gave up long before).
constexpr auto ack_limit = std::chrono::seconds(60);

class bridge_link final : public chan::inbound_loop {
public:
  bridge_link(whatsapp_config cfg, std::shared_ptr<bridge_outbox> outbox,
              chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), outbox_(std::move(outbox)),
      front_(std::move(front)), lg_(log::get("channel." + cfg_.name)) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~bridge_link() override {
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

  /// The key the original's `nanobot channels login whatsapp` saved for its
  /// bridge, so a home that ran the original works without bridgeToken.
  std::string saved_token() const {
    std::ifstream in{cfg_.token_file};
    std::stringstream ss;
    ss << in.rdbuf();
    return trim_space(ss.str());
  }

  void run() {
    if (cfg_.bridge_token.empty())
      cfg_.bridge_token = saved_token();
    if (cfg_.bridge_token.empty()) {
      fatal_ = true;
      last_error_ = "channels." + cfg_.name
                    + ".bridgeToken: missing (the bridge's BRIDGE_TOKEN; none "
                      "saved in "
                    + cfg_.token_file + " either)";
      report("error", last_error_);
    }
    int fails = 0;
    while (!stop_.stopping() && !fatal_) {
      report("connecting", "bridge " + cfg_.bridge_url);
      if (auto err = ws_.connect(cfg_.bridge_url, std::chrono::seconds(15));
          !err.empty())
        last_error_ = err;
      else if (session())
        fails = 0;
      outbox_->detach(last_error_);
      if (stop_.stopping())
        break;
      if (fatal_) {
        report("error", last_error_);
        break;
      }
      report("disconnected", last_error_);
      auto wait = milliseconds(std::min(30000, 250 << std::min(fails++, 7)));
      if (!stop_.sleep_for(wait))
        break;
    }
    outbox_->detach("the channel stopped");
    ws_.close(1000);
    done_ = true;
  }

  /// One connection; true when it lasted long enough to count as working.
  bool session() {
    if (auto err = ws_.send(auth_frame(cfg_.bridge_token).dump());
        !err.empty()) {
      last_error_ = err;
      return false;
    }
    outbox_->attach([this] { ws_.wake(); });
    report("connected", "bridge " + cfg_.bridge_url);
    auto since = steady::now();
    std::shared_ptr<bridge_command> in_flight;
    auto sent_at = steady::now();
    while (!stop_.stopping()) {
      if (!in_flight) {
        if ((in_flight = outbox_->next())) {
          if (auto err = ws_.send(in_flight->frame.dump()); !err.empty()) {
            outbox_->finish(in_flight, err);
            last_error_ = err;
            return true;
          }
          sent_at = steady::now();
        }
      } else if (steady::now() - sent_at > ack_limit) {
        lg_->warn("the bridge never answered command {}; going on",
                  in_flight->msg_id);
        outbox_->finish(in_flight, "no acknowledgement from the bridge");
        in_flight = nullptr;
        continue;
      }
      auto text = ws_.read(milliseconds(1000));
      if (!text) {
        if (!ws_.is_open()) {
          closed();
          return steady::now() - since > std::chrono::seconds(5);
        }
        continue;
      }
      handle(*text, in_flight);
    }
    return true;
  }

  void closed() {
    int code = ws_.close_code();
    auto reason = ws_.close_reason();
    last_error_ = "connection closed"
                  + (code ? " (" + std::to_string(code) + " " + reason + ")"
                          : ": " + reason);
    if (code == 4003) { // the bridge's "Invalid token"
      fatal_ = true;
      last_error_ = "channels." + cfg_.name
                    + ".bridgeToken: refused by the bridge (4003 " + reason
                    + ")";
    }
  }

  void handle(const std::string& text,
              std::shared_ptr<bridge_command>& in_flight) {
    auto f = read_bridge_frame(text, cfg_.name);
    switch (f.kind) {
      case bridge_frame::message:
        take(std::move(f));
        break;
      case bridge_frame::qr:
        lg_->info("WhatsApp wants a login: scan the bridge's QR code with "
                  "WhatsApp > Linked Devices (code {})", f.text);
        report("connecting", "waiting for the QR login at the bridge: "
                               + f.text);
        break;
      case bridge_frame::status:
        if (f.text == "connected")
          report("connected", "WhatsApp connected (bridge "
                                + cfg_.bridge_url + ")");
        else
          report("disconnected", "WhatsApp " + f.text + " at the bridge "
                                   "(it reconnects by itself)");
        break;
      case bridge_frame::sent:
      case bridge_frame::error:
        if (in_flight
            && (f.msg_id.empty() || f.msg_id == in_flight->msg_id)) {
          outbox_->finish(in_flight,
                          f.kind == bridge_frame::sent ? "" : f.text);
          in_flight = nullptr;
        } else if (f.kind == bridge_frame::error) {
          lg_->warn("bridge error: {}", f.text);
        }
        break;
      case bridge_frame::malformed:
        lg_->warn("malformed bridge frame skipped ({}): {}", f.text,
                  text.substr(0, 200));
        break;
      case bridge_frame::other:
        lg_->debug("bridge frame of type \"{}\" ignored", f.text);
        break;
    }
  }

  /// Copies the bridge's downloads (files on this host) under media_dir.
  void copy_media(bridge_frame& f) {
    std::vector<std::string> kept;
    for (auto& path : f.msg.media) {
      std::ifstream in{path, std::ios::binary};
      std::error_code ec;
      auto size = std::filesystem::file_size(path, ec);
      std::string err;
      std::string dest;
      if (!in || ec) {
        err = "not readable here";
      } else if (static_cast<int64_t>(size) > cfg_.max_media_bytes) {
        err = "larger than maxMediaBytes (" + std::to_string(size) + " bytes)";
      } else {
        std::stringstream ss;
        ss << in.rdbuf();
        dest = chan::save_media(cfg_.media_dir,
                                f.message_id + "_"
                                  + path.substr(path.rfind('/') + 1),
                                ss.str(), cfg_.max_media_bytes, err);
      }
      if (dest.empty()) {
        lg_->warn("attachment {} of message {} left out: {}", path,
                  f.message_id, err);
        chan::add_note(f.msg.content, "[file: "
                                        + path.substr(path.rfind('/') + 1)
                                        + " skipped: " + err + "]");
      } else {
        kept.push_back(dest);
        chan::add_note(f.msg.content, chan::media_tag(dest));
      }
    }
    f.msg.media = std::move(kept);
  }

  void take(bridge_frame f) {
    if (seen_.count(f.message_id))
      return; // WhatsApp delivered it again (after a reconnect)
    if (!f.msg.media.empty())
      copy_media(f);
    if (auto why = chan::hand_over_one(front_, std::move(f.msg));
        !why.empty()) {
      // The bridge has no acknowledgement to withhold: say it plainly.
      lg_->error("message {} from the bridge could not be journaled and is "
                 "lost: {}", f.message_id, why);
      report("error", "inbox: " + why);
      return;
    }
    seen_.insert(f.message_id);
    order_.push_back(f.message_id);
    if (order_.size() > 1000) {
      seen_.erase(order_.front());
      order_.pop_front();
    }
  }

  whatsapp_config cfg_;
  std::shared_ptr<bridge_outbox> outbox_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  chan::ws_connection ws_;
  std::set<std::string> seen_;
  std::deque<std::string> order_;
  std::string last_error_;
  bool fatal_ = false;
  chan::stop_flag stop_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_bridge(whatsapp_config cfg, std::shared_ptr<bridge_outbox> outbox,
             chan::adapter_front_actor front) {
  return std::make_unique<bridge_link>(std::move(cfg), std::move(outbox),
                                       std::move(front));
}

} // namespace nb::whatsapp
