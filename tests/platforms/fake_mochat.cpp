#include "tests/platforms/fake_mochat.hpp"

#include "tests/platforms/fake_mochat_impl.hpp"

namespace nb::test {

using steady = std::chrono::steady_clock;

/// The answer to subscribeSessions: per session what follows its cursor
/// (the recent history when it has none).
json fake_mochat::impl::subscribe(const json& req) {
  subscriptions.push_back(req);
  json items = json::array();
  auto cursors = req.value("cursors", json::object());
  for (auto& sid : req.value("sessionIds", json::array())) {
    auto id = sid.get<std::string>();
    subscribed.insert(id);
    int64_t from = cursors.contains(id) ? cursors[id].get<int64_t>() : -1;
    json events = json::array();
    for (auto& ev : logs[id])
      if (from < 0 || ev["seq"].get<int64_t>() > from)
        events.push_back(ev);
    items.push_back(
      {{"sessionId", id}, {"cursor", latest(id)}, {"events", events}});
  }
  return {{"result", true}, {"data", items}};
}

void fake_mochat::impl::client_frame(chan::ws_connection& c,
                                     const std::string& f) {
  if (f == "3") {
    ++pongs;
    return;
  }
  if (f.rfind("43", 0) == 0) { // an ack of one of our events
    auto id = std::stoll(f.substr(2));
    auto it = outstanding.find(id);
    if (it == outstanding.end())
      return;
    for (auto u = unacked_panel.begin(); u != unacked_panel.end(); ++u)
      if (u->first == it->second) {
        unacked_panel.erase(u);
        break;
      }
    outstanding.erase(it);
    ++acked;
    cv.notify_all();
    return;
  }
  if (f.rfind("42", 0) != 0)
    return;
  size_t i = 2;
  while (i < f.size() && isdigit(static_cast<unsigned char>(f[i])))
    ++i;
  auto id = f.substr(2, i - 2);
  auto body = json::parse(f.substr(i), nullptr, false);
  if (!body.is_array() || body.empty() || id.empty())
    return;
  json answer{{"result", false}, {"message", "unknown event"}};
  if (body[0] == "com.claw.im.subscribeSessions" && body.size() > 1)
    answer = subscribe(body[1]);
  else if (body[0] == "com.claw.im.subscribePanels")
    answer = {{"result", true}, {"data", json::object()}};
  c.send("43" + id + json::array({answer}).dump());
}

void fake_mochat::impl::hold_silent(chan::ws_connection& c) {
  std::unique_lock<std::mutex> g{mx};
  ++silent_held;
  cv.notify_all();
  while (!closing.load() && c.is_open()) {
    g.unlock();
    c.read(std::chrono::milliseconds(50));
    g.lock();
  }
  --silent_held;
  cv.notify_all();
}

void fake_mochat::impl::serve(chan::ws_connection& c) {
  bool quiet = false;
  {
    std::lock_guard<std::mutex> g{mx};
    quiet = silent;
  }
  if (quiet)
    return hold_silent(c);
  auto sid = "sid" + std::to_string(connections + 1);
  c.send("0"
         + json{{"sid", sid},
                {"upgrades", json::array()},
                {"pingInterval", ping_interval},
                {"pingTimeout", ping_timeout},
                {"maxPayload", 1000000}}
             .dump());
  auto first = c.read(std::chrono::seconds(5));
  if (!first || first->rfind("40", 0) != 0) {
    c.drop();
    return;
  }
  auto auth = json::parse(first->substr(2), nullptr, false);
  std::unique_lock<std::mutex> g{mx};
  if (!auth.is_object() || auth.value("token", "") != token) {
    ++refused;
    cv.notify_all();
    g.unlock();
    c.send(R"(44{"message":"Unauthorized: invalid claw token"})");
    c.close(1000);
    return;
  }
  ++connections;
  connected = true;
  subscribed.clear();
  queued.clear();
  outstanding.clear();
  for (auto& [id, payload] : unacked_panel)
    queued.push_back(
      {{"name", "claw.panel.events"}, {"payload", payload}, {"panel", id}});
  cv.notify_all();
  g.unlock();
  c.send("40" + json{{"sid", "s-" + sid}}.dump());
  g.lock();
  int64_t next_ack = 1;
  auto next_ping = steady::now() + std::chrono::milliseconds(ping_interval);
  while (!closing.load() && c.is_open()) {
    if (drop_now) {
      drop_now = false;
      c.drop();
      break;
    }
    std::vector<std::string> out;
    if (pings && steady::now() >= next_ping) {
      out.push_back("2");
      next_ping = steady::now() + std::chrono::milliseconds(ping_interval);
    }
    while (!queued.empty()) {
      auto q = std::move(queued.front());
      queued.pop_front();
      if (q.contains("raw")) {
        out.push_back(q["raw"].get<std::string>());
        continue;
      }
      auto id = next_ack++;
      outstanding[id] = q.value("panel", "");
      out.push_back("42" + std::to_string(id)
                    + json::array({q["name"], q["payload"]}).dump());
    }
    g.unlock();
    for (auto& text : out)
      c.send(text);
    auto msg = c.read(std::chrono::milliseconds(20));
    g.lock();
    if (msg)
      client_frame(c, *msg);
  }
  connected = false;
  queued.clear();
}

fake_mochat::fake_mochat(int ping_interval_ms, int ping_timeout_ms)
    : impl_(std::make_unique<impl>()) {
  auto* d = impl_.get();
  d->ping_interval = ping_interval_ms;
  d->ping_timeout = ping_timeout_ms;
  d->ws = std::make_unique<ws_listener>(
    [d](chan::ws_connection& c) { d->serve(c); },
    [d](const std::map<std::string, std::string>& h) {
      auto it = h.find(":target");
      std::lock_guard<std::mutex> g{d->mx};
      d->targets.push_back(it == h.end() ? "" : it->second);
      if (d->refuse)
        return 503;
      bool ok = it != h.end() && it->second.rfind("/socket.io/?", 0) == 0
                && it->second.find("EIO=4") != std::string::npos
                && it->second.find("transport=websocket") != std::string::npos;
      return ok ? 0 : 400;
    });
  d->install_routes();
  d->rest.new_task_queue = [] { return new httplib::ThreadPool(16); };
  d->rest_port = d->rest.bind_to_any_port("127.0.0.1");
  d->rest_thread = std::thread{[d] { d->rest.listen_after_bind(); }};
  while (!d->rest.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

fake_mochat::~fake_mochat() {
  {
    std::lock_guard<std::mutex> g{impl_->mx};
    impl_->closing = true;
  }
  impl_->cv.notify_all(); // ends the long polls held
  impl_->rest.stop();
  impl_->rest_thread.join();
  impl_->ws.reset();
}

std::string fake_mochat::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->rest_port);
}

std::string fake_mochat::socket_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->ws->port());
}

void fake_mochat::push_session(const std::string& session,
                               const std::string& author,
                               const std::string& text,
                               const std::string& message_id) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto& log = impl_->logs[session];
  auto seq = impl_->latest(session) + 1;
  log.push_back(impl::message_add(seq, message_id, author, text, "",
                                  "conv-" + session, false));
  if (impl_->connected && impl_->subscribed.count(session))
    impl_->queued.push_back({{"name", "claw.session.events"},
                             {"payload",
                              {{"sessionId", session},
                               {"cursor", seq},
                               {"events", json::array({log.back()})}}}});
  impl_->cv.notify_all(); // a long poll waits for it
}

void fake_mochat::push_panel(const std::string& panel, const std::string& group,
                             const std::string& author, const std::string& text,
                             const std::string& message_id, bool mention,
                             const std::string& created_at) {
  std::lock_guard<std::mutex> g{impl_->mx};
  auto ev = impl::message_add(-1, message_id, author, text, group, panel,
                              mention, created_at);
  json payload{{"sessionId", panel}, {"events", json::array({ev})}};
  // The panel's message list carries the message without the event's
  // wrapping, its time as createdAt.
  auto message = ev["payload"];
  message["createdAt"] = ev["timestamp"];
  impl_->panel_logs[panel].push_back(message);
  impl_->panel_group[panel] = group;
  impl_->unacked_panel.emplace_back(message_id, payload);
  if (impl_->connected)
    impl_->queued.push_back({{"name", "claw.panel.events"},
                             {"payload", payload},
                             {"panel", message_id}});
}

void fake_mochat::push_event(const std::string& name, const json& payload) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->queued.push_back({{"name", name}, {"payload", payload}});
}

void fake_mochat::push_raw(const std::string& text) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->queued.push_back({{"raw", text}});
}

void fake_mochat::drop() {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->drop_now = true;
}

void fake_mochat::refuse_socket(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->refuse = on;
  if (on && impl_->connected)
    impl_->drop_now = true;
}

void fake_mochat::fail_polls(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->polls_fail = on;
}

void fake_mochat::stop_pings(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->pings = !on;
}

void fake_mochat::silent_socket(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->silent = on;
}

int fake_mochat::silent_sockets() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->silent_held;
}

bool fake_mochat::wait_silent_sockets(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->silent_held >= n; });
}

void fake_mochat::limit_watches(int n) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->watches_to_limit = n;
}

int fake_mochat::limited_watches() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->watches_limited;
}

void fake_mochat::slow_instant_watches(std::chrono::milliseconds d) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->instant_delay = d;
}

void fake_mochat::limit_sends(int n) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->limited = n;
}

int fake_mochat::connections() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->connections;
}

bool fake_mochat::wait_connections(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->connections >= n; });
}

int fake_mochat::refused() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->refused;
}

int fake_mochat::pongs() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->pongs;
}

size_t fake_mochat::acked() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->acked;
}

bool fake_mochat::wait_acked(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->acked >= n; });
}

std::vector<json> fake_mochat::subscriptions() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->subscriptions;
}

std::vector<json> fake_mochat::sends() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->sends;
}

int fake_mochat::send_calls() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->send_calls;
}

bool fake_mochat::wait_sends(size_t n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->sends.size() >= n; });
}

std::vector<std::string> fake_mochat::targets() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->targets;
}

} // namespace nb::test

namespace nb::test {

std::vector<json> fake_mochat::watches() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->watches;
}

std::vector<json> fake_mochat::panel_reads() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  return impl_->panel_reads;
}

bool fake_mochat::wait_polls(size_t watches, size_t panel_reads,
                             std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] {
    return impl_->watches.size() >= watches
           && impl_->panel_reads.size() >= panel_reads;
  });
}

bool fake_mochat::wait_held_watches(int n, std::chrono::milliseconds t) const {
  std::unique_lock<std::mutex> g{impl_->mx};
  return impl_->cv.wait_for(g, t, [&] { return impl_->held_watches >= n; });
}

} // namespace nb::test
