#include "actors/channels/mochat/mochat_watch.hpp"

#include "actors/channels/mochat/mochat_event.hpp"
#include "actors/channels/mochat/mochat_watch_loop.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/cron/schedule.hpp"

namespace nb::mochat {

namespace watch_detail {

watch_loop::watch_loop(mochat_config cfg, std::string cursor_file,
                       chan::adapter_front_actor front)
    : cfg_(std::move(cfg)), front_(std::move(front)),
      lg_(log::get("channel." + cfg_.name)), api_(cfg_), sorter_(cfg_),
      targets_(cfg_, std::move(cursor_file)), polls_(cfg_),
      started_ms_(std::chrono::duration_cast<milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count()) {
  thread_ = std::thread{[this] { run(); }};
}

watch_loop::~watch_loop() {
  stop_.request();
  while (!done_.load()) {
    client_.interrupt();
    polls_.wake();
    std::this_thread::sleep_for(milliseconds(10));
  }
  thread_.join();
}

void watch_loop::run() {
  name_thread("mochat.watch");
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

bool watch_loop::poll_until(steady::time_point until) {
  start_polls();
  auto next_refresh = steady::now() + milliseconds(cfg_.refresh_interval_ms);
  while (!stop_.stopping() && !fatal_) {
    if (steady::now() >= until)
      return true;
    poll_round(until);
    if ((cfg_.all_sessions || cfg_.all_panels)
        && steady::now() >= next_refresh) {
      refresh_targets(false);
      start_polls();
      next_refresh = steady::now() + milliseconds(cfg_.refresh_interval_ms);
    }
  }
  return false;
}

void watch_loop::poll_round(steady::time_point until) {
  auto now = steady::now();
  auto wait = std::chrono::duration_cast<milliseconds>(
    std::min<steady::duration>(until - now, milliseconds(250)));
  if (auto d = sorter_.next_due())
    wait = std::min(wait, std::chrono::duration_cast<milliseconds>(*d - now));
  if (auto a = polls_.next(std::max(wait, milliseconds(1))))
    polled(*a);
  ready_batch due;
  sorter_.due(steady::now(), due);
  deliver(due);
}

std::string watch_loop::open_socket(const std::string& url, bool& refused) {
  attempt_.start(client_, url, json{{"token", cfg_.claw_token}},
                 milliseconds(cfg_.connect_timeout_ms),
                 [this] { polls_.wake(); });
  bool interrupted = false;
  while (!attempt_.ended()) {
    if (fatal_ && !interrupted) {
      client_.interrupt(); // the token was refused: the loop ends
      interrupted = true;
    }
    poll_round(steady::now() + milliseconds(250));
  }
  auto out = attempt_.collect();
  refused = out.refused;
  return out.error;
}

void watch_loop::start_polls() {
  for (const auto& s : targets_.sessions())
    polls_.ensure(s, target_kind::session, targets_.cursor(s),
                  targets_.cold(s));
  for (const auto& p : targets_.panels())
    polls_.ensure(p, target_kind::panel, 0, false);
}

void watch_loop::stop_polls() {
  if (!polls_.running())
    return;
  polls_.stop();
  while (auto a = polls_.next(milliseconds(0)))
    polled(*a);
  polling_ok_.reset();
}

void watch_loop::polling_state(bool ok, const std::string& err) {
  if (polling_ok_ == ok)
    return;
  polling_ok_ = ok;
  if (ok)
    report("connected", "HTTP polling (Socket.IO: " + last_error_ + ")");
  else
    report("disconnected", "HTTP polling: " + err);
}

void watch_loop::polled(poll_answer& a) {
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

void watch_loop::panel_read(const std::string& panel, const json& data) {
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

bool watch_loop::connection() {
  std::string why;
  auto url = sio::websocket_url(socket_base(cfg_), cfg_.socket_path, why);
  bool refused = false;
  auto err = open_socket(url, refused);
  if (fatal_)
    return false;
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
      wait =
        std::clamp(std::chrono::duration_cast<milliseconds>(*d - steady::now()),
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

} // namespace watch_detail

std::unique_ptr<chan::inbound_loop>
start_watch(mochat_config cfg, std::string cursor_file,
            chan::adapter_front_actor front) {
  return std::make_unique<watch_detail::watch_loop>(
    std::move(cfg), std::move(cursor_file), std::move(front));
}

} // namespace nb::mochat
