#include "actors/channels/telegram/telegram_poller.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

#include <caf/send.hpp>

#include "actors/channels/telegram/bot_api.hpp"
#include "actors/channels/telegram/telegram_update.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::telegram {

namespace {

using nlohmann::json;

class poller final : public chan::inbound_loop {
public:
  poller(telegram_config cfg, chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      api_(cfg_.api_base, cfg_.token), lg_(log::get("channel." + cfg_.name)) {
    thread_ = std::thread{[this] {
      // "tg.<channel>" (cut at 15): `ps -T` tells two bots' polls apart.
      name_thread(("tg." + cfg_.name).c_str());
      run();
    }};
  }

  ~poller() override {
    chan::stop_long_poll(
      stop_, polling_, done_, [this] { api_.abort(); }, thread_);
  }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  bool who_am_i() {
    int fails = 0;
    while (!stop_.stopping()) {
      auto r = api_.call("getMe", json::object(), std::chrono::seconds(15), 1,
                         &stop_);
      if (r.ok && r.result.is_object() && r.result.contains("id")
          && r.result["id"].is_number_integer()) {
        me_.id = r.result["id"].get<int64_t>();
        me_.username = r.result.value("username", "");
        return true;
      }
      bool fatal = r.error_code == 401 || r.error_code == 404;
      report(fatal ? "error" : "disconnected",
             "getMe: " + (r.description.empty() ? "no answer" : r.description));
      if (!stop_.back_off(fails))
        return false;
    }
    return false;
  }

  /// Saves the update's files and notes them in the message.
  void fetch_media(parsed_update& p) {
    std::error_code ec;
    std::filesystem::create_directories(cfg_.media_dir, ec);
    for (auto& m : p.media) {
      auto label = m.file_name.empty() ? m.kind : m.file_name;
      if (m.size > cfg_.max_media_bytes) {
        p.msg->content += "\n[" + m.kind + ": " + label + " skipped, "
                          + std::to_string(m.size) + " bytes is over the limit]";
        continue;
      }
      auto r = api_.call("getFile", json{{"file_id", m.file_id}},
                         std::chrono::seconds(30), 2, &stop_);
      std::string path = r.ok && r.result.is_object()
                           ? r.result.value("file_path", "") : "";
      std::string err = path.empty() ? "getFile: " + r.description : "";
      std::string dest;
      if (err.empty()) {
        auto base = std::filesystem::path(path).filename().string();
        auto id = m.unique_id.empty() ? m.file_id : m.unique_id;
        dest = cfg_.media_dir + "/" + id + "_"
               + (m.file_name.empty() ? base
                    : std::filesystem::path(m.file_name).filename().string());
        err = api_.download(path, dest);
      }
      if (!err.empty()) {
        lg_->warn("could not fetch {} {}: {}", m.kind, m.file_id, err);
        p.msg->content += "\n[" + m.kind + ": " + label + " unavailable]";
        continue;
      }
      p.msg->media.push_back(dest);
      p.msg->content += "\n[" + m.kind + ": " + dest + "]";
    }
  }

  void run() {
    report("connecting", cfg_.api_base);
    if (who_am_i()) {
      report("connected", "@" + me_.username);
      poll();
    }
    // Tell Telegram what was handed on, so a restart starts after it.
    if (have_offset_)
      api_.call("getUpdates",
                json{{"offset", offset_}, {"timeout", 0}, {"limit", 1}},
                std::chrono::seconds(3), 1);
    done_ = true;
  }

  void poll() {
    int fails = 0;
    bool connected = true;
    while (!stop_.stopping()) {
      json params{{"timeout", cfg_.poll_timeout_s},
                  {"allowed_updates", json::array({"message"})}};
      if (have_offset_)
        params["offset"] = offset_;
      polling_ = true;
      if (stop_.stopping())
        break;
      auto r = api_.call("getUpdates", params,
                         std::chrono::seconds(cfg_.poll_timeout_s + 15), 3,
                         &stop_);
      polling_ = false;
      if (stop_.stopping())
        break;
      if (!r.ok || !r.result.is_array()) {
        auto why = !r.ok ? r.description : "malformed answer (no update list)";
        if (r.ok)
          lg_->warn("getUpdates: {}", why);
        report(r.error_code == 401 ? "error" : "disconnected",
               "getUpdates: " + (why.empty() ? "no answer" : why));
        connected = false;
        if (!stop_.back_off(fails))
          break;
        continue;
      }
      fails = 0;
      if (!connected) {
        report("connected", "@" + me_.username);
        connected = true;
      }
      if (!hand_on(r.result)) {
        connected = false;
        if (!stop_.back_off(fails))
          break;
      }
    }
  }

  /// Hands the batch's messages on and moves the offset past every update
  /// that is safe to confirm: skipped ones and messages the inbox has on
  /// disk. False when the inbox refused one (it comes again next poll).
  bool hand_on(const json& updates) {
    struct step {
      int64_t update_id = 0;
      int msg_index = -1; ///< into msgs; -1: nothing to hand on
    };
    std::vector<step> steps;
    std::vector<inbound_msg> msgs;
    for (auto& u : updates) {
      auto p = parse_update(u, me_, cfg_.name);
      if (!p.update_id) {
        lg_->warn("malformed update ignored: {}", u.dump().substr(0, 200));
        continue;
      }
      if (have_offset_ && *p.update_id < offset_)
        continue; // confirmed before: never hand a message on twice
      step s{*p.update_id, -1};
      if (p.msg) {
        if (!p.media.empty())
          fetch_media(p);
        p.msg->wants_stream = cfg_.streaming;
        s.msg_index = static_cast<int>(msgs.size());
        msgs.push_back(std::move(*p.msg));
      } else {
        lg_->debug("update {} skipped: {}", *p.update_id, p.skipped);
      }
      steps.push_back(s);
    }
    auto done = chan::hand_over(front_, std::move(msgs));
    for (auto& s : steps) {
      if (s.msg_index >= static_cast<int>(done.recorded))
        break;
      offset_ = s.update_id + 1;
      have_offset_ = true;
    }
    if (done.error.empty())
      return true;
    lg_->warn("update not confirmed to Telegram (it comes again): {}",
              done.error);
    report("error", "inbox: " + done.error);
    return false;
  }

  telegram_config cfg_;
  chan::adapter_front_actor front_;
  bot_api api_;
  std::shared_ptr<spdlog::logger> lg_;
  bot_identity me_;
  int64_t offset_ = 0;
  bool have_offset_ = false;
  chan::stop_flag stop_;
  std::atomic<bool> polling_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_poller(telegram_config cfg, chan::adapter_front_actor front) {
  return std::make_unique<poller>(std::move(cfg), std::move(front));
}

} // namespace nb::telegram
