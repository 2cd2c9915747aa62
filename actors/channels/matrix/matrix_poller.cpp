#include "actors/channels/matrix/matrix_poller.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <caf/send.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/channels/matrix/matrix_sync.hpp"
#include "actors/common/log.hpp"
#include "config/atomic_file.hpp"

namespace nb::matrix {

namespace {

using nlohmann::json;

class poller final : public chan::inbound_loop {
public:
  poller(matrix_config cfg, std::string state_file,
         chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), state_file_(std::move(state_file)),
      front_(std::move(front)), http_(cfg_.homeserver),
      lg_(log::get("channel." + cfg_.name)) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~poller() override {
    chan::stop_long_poll(
      stop_, polling_, done_, [this] { http_.abort(); }, thread_);
  }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  std::string load_since() {
    std::ifstream f{state_file_};
    std::string s;
    std::getline(f, s);
    return s;
  }

  void save_since(const std::string& s) {
    std::error_code ec;
    std::filesystem::create_directories(
      std::filesystem::path(state_file_).parent_path(), ec);
    // fsync'd: a since-token that runs ahead of the journal after a power
    // cut would skip messages; one that is lost replays them (deduped).
    auto written = replace_file_atomic(state_file_, s + "\n", 0600);
    if (written.outcome == write_outcome::failed)
      lg_->warn("cannot save the sync token: {}", written.error);
  }

  /// Token and user id; false when stopping or hopeless.
  bool sign_in() {
    token_ = cfg_.access_token;
    me_ = cfg_.user_id;
    int fails = 0;
    while (!stop_.stopping()) {
      if (token_.empty()) {
        json body{{"type", "m.login.password"},
                  {"identifier", {{"type", "m.id.user"}, {"user", cfg_.user_id}}},
                  {"password", cfg_.password},
                  {"initial_device_display_name", "nanobot"}};
        if (!cfg_.device_id.empty())
          body["device_id"] = cfg_.device_id;
        auto r = cs_call(http_, "", "POST", "/_matrix/client/v3/login", body);
        if (r.ok && r.body.value("access_token", json{}).is_string())
          token_ = r.body["access_token"].get<std::string>();
        else if (r.status == 403) {
          report("error", "login: " + r.error);
          return false;
        }
      }
      if (!token_.empty()) {
        auto r = cs_call(http_, token_, "GET",
                         "/_matrix/client/v3/account/whoami");
        if (r.ok && r.body.value("user_id", json{}).is_string()) {
          me_ = r.body["user_id"].get<std::string>();
          return true;
        }
        if (r.status == 401) {
          report("error", "whoami: " + r.error);
          return false;
        }
        report("disconnected", "whoami: " + r.error);
      }
      if (!stop_.back_off(fails))
        return false;
    }
    return false;
  }

  void run() {
    report("connecting", cfg_.homeserver);
    if (sign_in()) {
      report("connected", "as " + me_);
      poll();
    }
    done_ = true;
  }

  void poll() {
    auto since = load_since();
    int fails = 0;
    bool connected = true;
    while (!stop_.stopping()) {
      std::string path = "/_matrix/client/v3/sync?timeout="
                         + std::to_string(since.empty() ? 0
                                                        : cfg_.sync_timeout_ms);
      if (!since.empty())
        path += "&since=" + chan::url_encode(since);
      polling_ = true;
      if (stop_.stopping())
        break;
      auto r = cs_call(http_, token_, "GET", path, nullptr,
                       std::chrono::seconds(cfg_.sync_timeout_ms / 1000 + 15));
      polling_ = false;
      if (stop_.stopping())
        break;
      auto batch = r.ok ? read_sync(r.body, me_, cfg_.name) : std::nullopt;
      if (!batch) {
        if (r.ok)
          lg_->warn("malformed /sync answer ignored");
        report(r.status == 401 ? "error" : "disconnected",
               "sync: " + (r.ok ? std::string{"malformed answer"} : r.error));
        connected = false;
        if (r.status == 401 || !stop_.back_off(fails))
          break;
        continue;
      }
      fails = 0;
      if (!connected) {
        report("connected", "as " + me_);
        connected = true;
      }
      if (batch->malformed > 0)
        lg_->warn("{} malformed timeline events ignored", batch->malformed);
      // The first start answers nothing from before it existed. The since
      // token moves on only once the batch is in the inbox journal.
      if (!since.empty() && !batch->messages.empty()) {
        auto done = chan::hand_over(front_, std::move(batch->messages));
        if (!done.error.empty()) {
          lg_->warn("sync batch not confirmed (it comes again): {}",
                    done.error);
          report("error", "inbox: " + done.error);
          connected = false;
          if (!stop_.sleep_for(std::chrono::seconds(1)))
            break;
          continue;
        }
      }
      if (cfg_.auto_join)
        for (auto& room : batch->invites)
          cs_call(http_, token_, "POST",
                  "/_matrix/client/v3/rooms/" + chan::url_encode(room)
                    + "/join",
                  json::object());
      since = batch->next_batch;
      save_since(since);
    }
  }

  matrix_config cfg_;
  std::string state_file_;
  chan::adapter_front_actor front_;
  chan::http_endpoint http_;
  std::shared_ptr<spdlog::logger> lg_;
  std::string token_;
  std::string me_;
  chan::stop_flag stop_;
  std::atomic<bool> polling_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_poller(matrix_config cfg, std::string state_file,
             chan::adapter_front_actor front) {
  return std::make_unique<poller>(std::move(cfg), std::move(state_file),
                                  std::move(front));
}

} // namespace nb::matrix
