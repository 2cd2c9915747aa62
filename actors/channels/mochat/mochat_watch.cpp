#include "actors/channels/mochat/mochat_watch.hpp"

#include <atomic>
#include <thread>

#include <caf/send.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/mochat/mochat_api.hpp"
#include "actors/channels/mochat/mochat_event.hpp"
#include "actors/channels/mochat/mochat_poll.hpp"
#include "actors/channels/mochat/mochat_sorter.hpp"
#include "actors/channels/mochat/mochat_targets.hpp"
#include "actors/channels/mochat/socketio_client.hpp"
#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/stop_flag.hpp"
#include "actors/common/log.hpp"
#include "actors/cron/schedule.hpp"

namespace nb::mochat {

namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using steady = std::chrono::steady_clock;

class watch_loop final : public chan::inbound_loop {
public:
  watch_loop(mochat_config cfg, std::string cursor_file,
             chan::adapter_front_actor front)
      : cfg_(std::move(cfg)), front_(std::move(front)),
        lg_(log::get("channel." + cfg_.name)), api_(cfg_), sorter_(cfg_),
        targets_(cfg_, std::move(cursor_file)), polls_(cfg_),
        started_ms_(std::chrono::duration_cast<milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count()) {
    thread_ = std::thread{[this] { run(); }};
  }

  ~watch_loop() override {
    stop_.request();
    while (!done_.load()) {
      client_.interrupt();
      std::this_thread::sleep_for(milliseconds(10));
    }
    thread_.join();
  }

private:
  void report(const std::string& state, const std::string& detail) {
    caf::anon_send(front_, chan::adapter_report{state, detail});
  }

  std::string token_error(const std::string& why) const {
    return "channels." + cfg_.name + ".clawToken: refused by Mochat (" + why
           + ")";
  }

  bool polling_works() const { return polling_ok_.value_or(false); }

  /// The socket first; while it cannot be used (between its attempts, and
  /// for good once maxRetryAttempts are spent) HTTP polling, as the
  /// original falls back to.
  void run() {
    int64_t fails = 0;
    while (!stop_.stopping() && !fatal_) {
      if (!polling_works())
        report("connecting", "");
      refresh_targets(false);
      if (!fatal_ && connection())
        fails = 0;
      sorter_.forget_acks();
      pending_.clear();
      if (stop_.stopping() || fatal_)
        break;
      if (!polling_works())
        report("disconnected", last_error_);
      ++fails;
      auto until = steady::time_point::max();
      if (cfg_.max_retry_attempts > 0 && fails > cfg_.max_retry_attempts) {
        lg_->warn("Socket.IO given up after {} reconnection attempts "
                  "(channels.{}.maxRetryAttempts): {}; HTTP polling only",
                  fails - 1, cfg_.name, last_error_);
      } else {
        until = steady::now()
                + milliseconds(std::min(cfg_.max_reconnect_delay_ms,
                                        cfg_.reconnect_delay_ms
                                          << std::min<int64_t>(fails - 1, 16)));
      }
      if (!poll_until(until))
        break;
    }
    if (fatal_)
      report("error", last_error_);
    polls_.stop();
    client_.close();
    done_ = true;
  }

  /// Polls over HTTP until `until` (the next socket attempt). False when
  /// stopping or the token was refused.
  bool poll_until(steady::time_point until) {
    start_polls();
    auto next_refresh = steady::now() + milliseconds(cfg_.refresh_interval_ms);
    while (!stop_.stopping() && !fatal_) {
      auto now = steady::now();
      if (now >= until)
        return true;
      auto wait = std::chrono::duration_cast<milliseconds>(
        std::min<steady::duration>(until - now, milliseconds(250)));
      if (auto d = sorter_.next_due())
        wait = std::clamp(std::chrono::duration_cast<milliseconds>(*d - now),
                          milliseconds(1), wait);
      if (auto a = polls_.next(wait))
        polled(*a);
      ready_batch due;
      sorter_.due(steady::now(), due);
      deliver(due);
      if ((cfg_.all_sessions || cfg_.all_panels)
          && steady::now() >= next_refresh) {
        refresh_targets(false);
        start_polls();
        next_refresh = steady::now() + milliseconds(cfg_.refresh_interval_ms);
      }
    }
    return false;
  }

  void start_polls() {
    for (const auto& s : targets_.sessions())
      polls_.ensure(s, target_kind::session, targets_.cursor(s),
                    targets_.cold(s));
    for (const auto& p : targets_.panels())
      polls_.ensure(p, target_kind::panel, 0, false);
  }

  /// The socket is back: the polls end, and what they brought in is
  /// handled before the subscriptions ask from the cursors.
  void stop_polls() {
    if (!polls_.running())
      return;
    polls_.stop();
    while (auto a = polls_.next(milliseconds(0)))
      polled(*a);
    polling_ok_.reset();
  }

  void polling_state(bool ok, const std::string& err) {
    if (polling_ok_ == ok)
      return;
    polling_ok_ = ok;
    if (ok)
      report("connected", "HTTP polling (Socket.IO: " + last_error_ + ")");
    else
      report("disconnected", "HTTP polling: " + err);
  }

  /// One answer of the polling endpoints, handled as the socket's events
  /// are; then the thread is told when to ask again.
  void polled(poll_answer& a) {
    auto panel_pause =
      milliseconds(std::max<int64_t>(1000, cfg_.refresh_interval_ms));
    auto retry = milliseconds(std::max<int64_t>(100, cfg_.retry_delay_ms));
    auto pause = a.kind == target_kind::panel ? panel_pause : milliseconds(0);
    if (!a.answer.error.empty()) {
      if (a.answer.bad_token) {
        fatal_ = true;
        last_error_ = token_error(a.answer.error);
        return;
      }
      lg_->warn("HTTP polling of {} failed: {}", a.target, a.answer.error);
      polling_state(false, a.answer.error);
      if (a.kind == target_kind::session)
        pause = retry;
    } else {
      polling_state(true, "");
      bool deferred = false;
      if (a.kind == target_kind::panel)
        panel_read(a.target, a.answer.data);
      else if (!watch(a.answer.data, target_kind::session, {}, deferred))
        pause = retry; // not handed on: asked again from the same cursor
    }
    polls_.again(a.target, a.kind, targets_.cursor(a.target),
                 targets_.cold(a.target), pause);
  }

  /// A panel's latest messages. Those from before the adapter started are
  /// history and not answered (one without a readable createdAt counts
  /// as new, as in the original); those handed on before are skipped.
  void panel_read(const std::string& panel, const json& data) {
    ready_batch out;
    std::string why;
    for (const auto& ev : read_panel_messages(data, panel)) {
      auto ts = ev.value("timestamp", json{});
      if (ts.is_string())
        if (auto at = cron::parse_iso(ts.get<std::string>(), "UTC");
            at && *at < started_ms_)
          continue;
      auto m = read_message_add(cfg_, panel, target_kind::panel, ev, why);
      if (!m) {
        if (why.rfind("malformed", 0) == 0)
          lg_->warn("{} in {}: skipped", why, panel);
        continue;
      }
      sorter_.take(panel, target_kind::panel, std::move(*m), {}, steady::now(),
                   out);
    }
    deliver(out);
  }

  /// One connection; true when it was established.
  bool connection() {
    std::string why;
    auto url = sio::websocket_url(socket_base(cfg_), cfg_.socket_path, why);
    bool refused = false;
    auto err = client_.open(url, json{{"token", cfg_.claw_token}},
                            milliseconds(cfg_.connect_timeout_ms), refused);
    if (!err.empty()) {
      last_error_ = err;
      if (refused) {
        fatal_ = true;
        last_error_ = token_error(err);
      }
      return false;
    }
    stop_polls();
    if (fatal_)
      return true;
    report("connected", client_.handshake().sid);
    const auto& ss = targets_.sessions();
    const auto& ps = targets_.panels();
    subscribe_sessions(std::vector<std::string>(ss.begin(), ss.end()));
    subscribe_panels(std::vector<std::string>(ps.begin(), ps.end()));
    auto next_refresh = steady::now() + milliseconds(cfg_.refresh_interval_ms);
    while (!stop_.stopping() && client_.alive()) {
      auto wait = milliseconds(250);
      if (auto d = sorter_.next_due())
        wait = std::clamp(
          std::chrono::duration_cast<milliseconds>(*d - steady::now()),
          milliseconds(1), wait);
      std::string skipped;
      auto p = client_.next(wait, skipped);
      if (!skipped.empty())
        lg_->warn("malformed Socket.IO frame skipped ({})", skipped);
      bool ok = !p || handle(*p);
      if (ok) {
        ready_batch due;
        sorter_.due(steady::now(), due);
        ok = deliver(due);
      }
      if (!ok) {
        // Not acknowledged: the server sends it again on the next
        // connection (or from the stored cursor).
        client_.close();
        return true;
      }
      if ((cfg_.all_sessions || cfg_.all_panels)
          && steady::now() >= next_refresh) {
        refresh_targets(true);
        next_refresh = steady::now() + milliseconds(cfg_.refresh_interval_ms);
        if (fatal_)
          return true;
      }
    }
    last_error_ = stop_.stopping() ? "stopped" : client_.ended();
    return true;
  }

  void subscribe_sessions(const std::vector<std::string>& ids) {
    if (ids.empty())
      return;
    auto id = next_id_++;
    pending_[id] = "com.claw.im.subscribeSessions";
    client_.emit(pending_[id],
                 json::array({{{"sessionIds", ids},
                               {"cursors", targets_.cursors()},
                               {"limit", cfg_.watch_limit}}}),
                 id);
  }

  void subscribe_panels(const std::vector<std::string>& ids) {
    if (ids.empty() && !cfg_.all_panels)
      return;
    auto id = next_id_++;
    pending_[id] = "com.claw.im.subscribePanels";
    client_.emit(pending_[id], json::array({{{"panelIds", ids}}}), id);
  }

  /// False when a message could not be handed on (nothing acknowledged).
  bool handle(const sio::sio_packet& p) {
    const auto& arg = sio::first_arg(p);
    if (p.type == sio::sio_type::ack)
      return answered(*p.id, arg);
    if (p.type != sio::sio_type::event)
      return true;
    auto name = sio::event_name(p);
    bool deferred = false;
    bool ok = true;
    if (name == "claw.session.events")
      ok = watch(arg, target_kind::session, p.id, deferred);
    else if (name == "claw.panel.events")
      ok = watch(arg, target_kind::panel, p.id, deferred);
    else if (name == "notify:chat.inbox.append")
      ok = inbox_append(arg, p.id, deferred);
    else if (name.rfind("notify:chat.message.", 0) == 0)
      ok = notify_message(arg, p.id, deferred);
    else
      lg_->debug("event {} not used", name);
    if (ok && p.id && !deferred)
      client_.ack(*p.id);
    return ok;
  }

  /// The answer to one of our emits.
  bool answered(int64_t id, const json& arg) {
    auto it = pending_.find(id);
    if (it == pending_.end())
      return true;
    auto what = it->second;
    pending_.erase(it);
    if (arg.is_object() && arg.contains("result") && arg["result"] != true) {
      auto msg = arg.value("message", json("unknown error"));
      // Without its subscriptions the socket carries nothing: connect
      // again (after the back-off), the reason shown in channels status.
      last_error_ = what + " failed: "
                    + (msg.is_string() ? msg.get<std::string>() : msg.dump());
      lg_->error("{}", last_error_);
      return false;
    }
    if (what != "com.claw.im.subscribeSessions")
      return true;
    auto data = arg.is_object() && arg.contains("data") ? arg["data"] : arg;
    std::vector<json> items;
    if (data.is_array())
      items.assign(data.begin(), data.end());
    else if (data.is_object() && data.value("sessions", json{}).is_array())
      items.assign(data["sessions"].begin(), data["sessions"].end());
    else if (data.is_object() && data.contains("sessionId"))
      items.push_back(data);
    for (const auto& item : items) {
      bool deferred = false;
      if (item.is_object() && !watch(item, target_kind::session, {}, deferred))
        return false;
    }
    return true;
  }

  /// A watch payload: its messages handed on, then its cursor moved.
  bool watch(const json& payload, target_kind kind, std::optional<int64_t> ack,
             bool& deferred) {
    std::string why;
    auto b = read_watch(payload, why);
    if (!b) {
      lg_->warn("malformed watch payload skipped ({})", why);
      return true;
    }
    auto& target = b->target_id;
    int64_t cursor = -1;
    if (kind == target_kind::session) {
      cursor =
        std::max({targets_.cursor(target), b->cursor.value_or(0), b->max_seq});
    }
    bool skip_history = kind == target_kind::session && b->has_events
                        && targets_.take_cold(target);
    if (b->has_events && !skip_history) {
      ready_batch out;
      for (const auto& ev : b->events) {
        auto m = read_message_add(cfg_, target, kind, ev, why);
        if (!m) {
          if (why.rfind("malformed", 0) == 0)
            lg_->warn("{} in {}: skipped", why, target);
          continue;
        }
        deferred =
          sorter_.take(target, kind, std::move(*m), ack, steady::now(), out)
          || deferred;
      }
      if (!deliver(out))
        return false;
    }
    if (kind == target_kind::session)
      if (auto err = targets_.move_cursor(target, cursor); !err.empty())
        lg_->warn("cursor not saved: {}", err);
    return true;
  }

  bool notify_message(const json& payload, std::optional<int64_t> ack,
                      bool& deferred) {
    auto ev = read_notify_message(payload);
    if (!ev
        || (!targets_.panels().empty() && !targets_.panels().count(ev->first)))
      return true;
    return one_message(ev->first, target_kind::panel, ev->second, ack,
                       deferred);
  }

  bool inbox_append(const json& payload, std::optional<int64_t> ack,
                    bool& deferred) {
    auto ev = read_inbox_append(payload);
    if (!ev)
      return true;
    auto session = targets_.session_of(ev->first);
    if (session.empty()) {
      refresh_sessions(true);
      session = targets_.session_of(ev->first);
    }
    if (session.empty())
      return true;
    return one_message(session, target_kind::session, ev->second, ack,
                       deferred);
  }

  bool one_message(const std::string& target, target_kind kind,
                   const json& event, std::optional<int64_t> ack,
                   bool& deferred) {
    std::string why;
    auto m = read_message_add(cfg_, target, kind, event, why);
    if (!m) {
      if (why.rfind("malformed", 0) == 0)
        lg_->warn("{} in {}: skipped", why, target);
      return true;
    }
    ready_batch out;
    deferred =
      sorter_.take(target, kind, std::move(*m), ack, steady::now(), out);
    return deliver(out);
  }

  /// Hands `out` over; once journaled, remembers and acknowledges it.
  bool deliver(ready_batch& out) {
    if (!out.msgs.empty()) {
      auto n = out.msgs.size();
      auto done = chan::hand_over(front_, std::move(out.msgs));
      if (done.recorded < n) {
        last_error_ = "inbox: " + done.error;
        lg_->warn("messages not acknowledged to Mochat (they come again): {}",
                  done.error);
        return false;
      }
    }
    sorter_.remember(out.keys);
    for (auto id : out.acks)
      client_.ack(id);
    return true;
  }

  void refresh_targets(bool subscribe_new) {
    if (cfg_.all_sessions)
      refresh_sessions(subscribe_new);
    if (cfg_.all_panels && !fatal_)
      refresh_panels(subscribe_new);
  }

  /// A refused token is fatal; other failures are tried again later.
  void note_refresh(const std::string& err, bool bad_token, const char* what) {
    if (err.empty())
      return;
    if (bad_token) {
      fatal_ = true;
      last_error_ = token_error(err);
    }
    lg_->warn("{} failed: {}", what, err);
  }

  void refresh_sessions(bool subscribe_new) {
    std::vector<std::string> fresh;
    bool bad = false;
    auto err = targets_.refresh_sessions(api_, fresh, bad);
    note_refresh(err, bad, "listing sessions");
    if (subscribe_new && !fresh.empty())
      subscribe_sessions(fresh);
  }

  void refresh_panels(bool subscribe_new) {
    std::vector<std::string> fresh;
    bool bad = false;
    auto err = targets_.refresh_panels(api_, fresh, bad);
    note_refresh(err, bad, "reading the workspace's panels");
    if (subscribe_new && !fresh.empty())
      subscribe_panels(fresh);
  }

  mochat_config cfg_;
  chan::adapter_front_actor front_;
  std::shared_ptr<spdlog::logger> lg_;
  rest_api api_;
  sorter sorter_;
  watch_targets targets_;
  socketio_client client_;
  poll_workers polls_;
  int64_t started_ms_; ///< epoch ms: panel messages before it are history
  /// The last poll's outcome; unset while on the socket.
  std::optional<bool> polling_ok_;
  std::map<int64_t, std::string> pending_; ///< our emits awaiting acks
  int64_t next_id_ = 0;
  std::string last_error_;
  bool fatal_ = false;
  chan::stop_flag stop_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

std::unique_ptr<chan::inbound_loop>
start_watch(mochat_config cfg, std::string cursor_file,
            chan::adapter_front_actor front) {
  return std::make_unique<watch_loop>(std::move(cfg), std::move(cursor_file),
                                      std::move(front));
}

} // namespace nb::mochat
