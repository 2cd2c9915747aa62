#include "actors/channels/napcat/napcat_link.hpp"

#include <atomic>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/kit/ws_connection.hpp"
#include "actors/channels/napcat/napcat_event.hpp"
#include "actors/common/log.hpp"

namespace nb::napcat {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr size_t remembered_ids = 2000;

class link final : public chan::inbound_loop {
public:
  link(napcat_config cfg, std::shared_ptr<action_line> line,
       chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), line_(std::move(line)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~link() override {
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

  void run() {
    int fails = 0;
    while (!stop_.stopping()) {
      report("connecting", cfg_.ws_url);
      bool was_up = session();
      line_->detach(last_error_);
      if (stop_.stopping())
        break;
      if (fatal_) {
        report("error", last_error_);
        break;
      }
      report("disconnected", last_error_);
      if (was_up)
        fails = 0;
      auto wait = milliseconds(std::min(30000, 250 << std::min(fails++, 7)));
      if (!stop_.sleep_for(wait))
        break;
    }
    ws_.close(1000);
    done_ = true;
  }

  /// One connection; true when it was established.
  bool session() {
    std::map<std::string, std::string> headers;
    if (!cfg_.access_token.empty())
      headers["Authorization"] = "Bearer " + cfg_.access_token;
    if (auto err = ws_.connect(cfg_.ws_url, std::chrono::seconds(15), headers);
        !err.empty()) {
      int status = ws_.handshake_status();
      if (status == 401 || status == 403) {
        fatal_ = true;
        last_error_ = "channels." + cfg_.name
                      + ".accessToken: refused by NapCat (HTTP "
                      + std::to_string(status) + ")";
      } else {
        last_error_ = err;
      }
      return false;
    }
    line_->attach([this] { ws_.wake(); });
    login_echo_ = "nb-login-" + std::to_string(++logins_);
    ws_.send(json{{"action", "get_login_info"}, {"params", json::object()},
                  {"echo", login_echo_}}
               .dump());
    report("connected", cfg_.ws_url);
    while (!stop_.stopping()) {
      for (auto& frame : line_->take_outgoing())
        if (auto err = ws_.send(frame); !err.empty())
          lg_->warn("action not sent: {}", err);
      auto text = ws_.read(milliseconds(1000));
      if (!text) {
        if (!ws_.is_open()) {
          int code = ws_.close_code();
          last_error_ = "connection closed"
                        + (code ? " (" + std::to_string(code) + " "
                                    + ws_.close_reason() + ")"
                                : ": " + ws_.close_reason());
          return true;
        }
        continue;
      }
      frame(*text);
    }
    return true;
  }

  void frame(const std::string& text) {
    auto f = json::parse(text, nullptr, false);
    if (!f.is_object()) {
      lg_->warn("malformed frame ignored: {}", text.substr(0, 200));
      return;
    }
    if (auto echo = answer_echo(f); !echo.empty()) {
      answered(echo, std::move(f));
      return;
    }
    if (auto self = id_text(f, "self_id"); !self.empty())
      view_.self_id = self;
    auto post = f.value("post_type", json{});
    if (post == "message") {
      message(f);
    } else if (post == "notice" && cfg_.welcome_new_members) {
      if (auto in = read_welcome(f, cfg_.name))
        take(std::move(*in), "");
    }
  }

  void answered(const std::string& echo, json f) {
    const json data = f.value("data", json::object());
    if (echo == login_echo_) {
      if (auto self = id_text(data, "user_id"); !self.empty()) {
        view_.self_id = self;
        auto nick = data.is_object() && data.value("nickname", json{}).is_string()
                      ? data["nickname"].get<std::string>() : "?";
        report("connected", "as " + nick + " (" + self + ")");
      }
      return;
    }
    // A send's answer names the new message: a reply to it addresses us.
    view_.note_sent(id_text(data, "message_id"));
    line_->answer(echo, std::move(f));
  }

  void message(const json& ev) {
    std::string why;
    auto m = read_message(ev, view_, cfg_.name, why);
    if (!m) {
      if (why != "no text or images")
        lg_->warn("message event ignored: {}", why);
      return;
    }
    if (!m->message_id.empty() && seen_.count(m->message_id) > 0)
      return; // sent again (after a reconnect): already handed on
    std::uniform_real_distribution<double> draw{0.0, 1.0};
    if (!should_answer(cfg_, *m, draw(rng_)))
      return;
    for (auto& img : m->images)
      save_image(*m, img);
    take(std::move(m->msg), m->message_id);
  }

  void save_image(onebot_message& m, const image_ref& img) {
    if (img.size > cfg_.max_image_bytes) {
      lg_->warn("image {} skipped: {} bytes is over maxImageBytes", img.file,
                img.size);
      chan::add_note(m.msg.content, "[image skipped: over the size limit]");
      return;
    }
    std::error_code ec;
    std::filesystem::create_directories(cfg_.media_dir, ec);
    auto name = img.file.empty() ? std::string{"image.jpg"} : img.file;
    auto dest = cfg_.media_dir + "/"
                + chan::safe_media_name(m.message_id + "_" + name);
    if (auto err = chan::download_file(img.url, dest, cfg_.max_image_bytes);
        !err.empty()) {
      lg_->warn("image {} not saved: {}", name, err);
      chan::add_note(m.msg.content, "[image unavailable: " + err + "]");
      return;
    }
    m.msg.media.push_back(dest);
    chan::add_note(m.msg.content, chan::media_tag(dest));
  }

  void take(inbound_msg in, const std::string& message_id) {
    if (auto why = chan::hand_over_one(front_, std::move(in)); !why.empty()) {
      lg_->warn("message not taken in: {}", why);
      report("error", "inbox: " + why);
      return;
    }
    if (message_id.empty())
      return;
    seen_.insert(message_id);
    seen_order_.push_back(message_id);
    if (seen_order_.size() > remembered_ids) {
      seen_.erase(seen_order_.front());
      seen_order_.pop_front();
    }
  }

  napcat_config cfg_;
  std::shared_ptr<action_line> line_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  chan::ws_connection ws_;
  onebot_view view_;
  std::set<std::string> seen_;
  std::deque<std::string> seen_order_;
  std::string login_echo_;
  int logins_ = 0;
  bool fatal_ = false;
  std::string last_error_;
  std::mt19937 rng_{std::random_device{}()};
  chan::stop_flag stop_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_link(napcat_config cfg, std::shared_ptr<action_line> line,
           chan::adapter_front_actor front) {
  return std::make_unique<link>(std::move(cfg), std::move(line),
                                std::move(front));
}

} // namespace nb::napcat
