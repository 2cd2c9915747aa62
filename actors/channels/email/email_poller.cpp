#include "actors/channels/email/email_poller.hpp"

#include <atomic>
#include <set>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/email/curl_mail.hpp"
#include "actors/channels/email/mail_message.hpp"
#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/common/log.hpp"

namespace nb::email {

namespace {

using nlohmann::json;

class poller final : public chan::inbound_loop {
public:
  poller(email_config cfg, chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~poller() override {
    stopping_ = true; // aborts a transfer in progress
    stop_.request();
    thread_.join();
  }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  void run() {
    report("connecting", cfg_.imap_host);
    imap_client imap{cfg_, &stopping_};
    std::string last_state;
    do {
      std::vector<std::string> uids;
      auto r = imap.search_unseen(uids);
      if (!r.error.empty()) {
        report("disconnected", r.error);
        last_state = "disconnected";
        continue;
      }
      if (last_state != "connected")
        report("connected", cfg_.imap_username + "@" + cfg_.imap_host);
      last_state = "connected";
      for (auto& uid : uids) {
        if (stop_.stopping())
          break;
        if (!handled_.insert(uid).second)
          continue;
        // Read without setting \Seen; the flag is the acknowledgement and
        // is set only once the inbox journal has the message.
        bool peeked = true;
        auto m = imap.fetch_peek(uid);
        if (!m.error.empty()) {
          lg_->debug("BODY.PEEK fetch of {} failed ({}); plain fetch", uid,
                     m.error);
          peeked = false;
          m = imap.fetch(uid);
        }
        if (!m.error.empty()) {
          handled_.erase(uid); // try again next time
          lg_->warn("fetch of message {} failed: {}", uid, m.error);
          continue;
        }
        if (!hand_on(parse_mail(m.body), uid)) {
          // Not in the inbox journal: unseen, fetched again next time.
          handled_.erase(uid);
          if (!peeked)
            imap.unsee(uid);
          continue;
        }
        if (cfg_.mark_seen && peeked)
          imap.see(uid);
        else if (!cfg_.mark_seen && !peeked)
          imap.unsee(uid);
      }
    } while (stop_.sleep_for(std::chrono::seconds(cfg_.poll_interval_s)));
  }

  /// False when the mail could not be journaled (it is fetched again).
  bool hand_on(mail m, const std::string& uid) {
    if (m.from_address.empty()) {
      lg_->warn("message {} has no usable From address; ignored", uid);
      return true;
    }
    if (m.auto_submitted || m.from_address == cfg_.from_address) {
      lg_->info("automatic mail from {} not answered", m.from_address);
      return true;
    }
    if (!m.message_id.empty() && ids_.count(m.message_id))
      return true;
    if (m.body.size() > static_cast<size_t>(cfg_.max_body_chars))
      m.body = m.body.substr(0, cfg_.max_body_chars) + "\n[... cut at "
               + std::to_string(cfg_.max_body_chars) + " characters]";
    inbound_msg in;
    in.channel = cfg_.name;
    in.sender_id = m.from_address;
    in.chat_id = m.from_address;
    in.content = "Subject: " + m.subject + "\n\n" + m.body;
    in.metadata_json = json{{"_is_group", false},
                            {"_mentioned", true},
                            {"_message_id", m.message_id},
                            {"subject", m.subject},
                            {"message_id", m.message_id},
                            {"references", m.references}}
                         .dump();
    if (auto why = chan::hand_over_one(front_, std::move(in)); !why.empty()) {
      lg_->warn("message {} not kept (fetched again later): {}", uid, why);
      report("error", "inbox: " + why);
      return false;
    }
    if (!m.message_id.empty())
      ids_.insert(m.message_id);
    return true;
  }

  email_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  std::set<std::string> handled_; ///< UIDs seen by this process
  std::set<std::string> ids_;     ///< Message-IDs handed on
  std::atomic<bool> stopping_{false};
  chan::stop_flag stop_;
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_poller(email_config cfg, chan::adapter_front_actor front) {
  return std::make_unique<poller>(std::move(cfg), std::move(front));
}

} // namespace nb::email
