#include "tests/platforms/fake_mochat_impl.hpp"

namespace nb::test {

bool fake_mochat::impl::authorized(const httplib::Request& req,
                                   httplib::Response& res) {
  if (req.get_header_value("X-Claw-Token") == token)
    return true;
  res.status = 401;
  res.set_content(R"({"code":401,"message":"invalid token"})",
                  "application/json");
  return false;
}

void fake_mochat::impl::answer(httplib::Response& res, const json& data) {
  res.set_content(json{{"code", 200}, {"data", data}}.dump(),
                  "application/json");
}

void fake_mochat::impl::on_send(const std::string& path,
                                const httplib::Request& req,
                                httplib::Response& res) {
  std::lock_guard<std::mutex> g{mx};
  if (!authorized(req, res))
    return;
  ++send_calls;
  if (limited > 0) {
    --limited;
    res.status = 429;
    res.set_header("Retry-After", "1");
    res.set_content(R"({"code":429,"message":"too many requests"})",
                    "application/json");
    return;
  }
  auto body = json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body.value("content", json{}).is_string()) {
    res.status = 400;
    return;
  }
  body["path"] = path;
  sends.push_back(body);
  cv.notify_all();
  answer(res, {{"messageId", "m-out-" + std::to_string(sends.size())}});
}

void fake_mochat::impl::on_watch(const httplib::Request& req,
                                 httplib::Response& res) {
  std::unique_lock<std::mutex> g{mx};
  if (!authorized(req, res))
    return;
  auto body = json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body.value("sessionId", json{}).is_string()
      || !body.value("cursor", json{}).is_number_integer()
      || !body.value("timeoutMs", json{}).is_number_integer()
      || !body.value("limit", json{}).is_number_integer()) {
    res.status = 400;
    return;
  }
  watches.push_back(body);
  cv.notify_all();
  if (watches_to_limit > 0) {
    --watches_to_limit;
    ++watches_limited;
    res.status = 429;
    res.set_header("Retry-After", "1");
    res.set_content(R"({"code":429,"message":"too many requests"})",
                    "application/json");
    return;
  }
  if (polls_fail) {
    res.status = 503;
    return;
  }
  auto id = body["sessionId"].get<std::string>();
  auto cursor = body["cursor"].get<int64_t>();
  auto limit = body["limit"].get<size_t>();
  auto timeout = std::chrono::milliseconds(body["timeoutMs"].get<int64_t>());
  if (timeout.count() == 0) {
    // Where the session stands, answered at once (or as late as a busy
    // server): not a long poll, though the mutex is let go meanwhile.
    cv.wait_for(g, instant_delay, [&] { return closing.load(); });
  } else {
    // Held until the log has something after the cursor, or timeoutMs.
    ++held_watches;
    cv.notify_all();
    cv.wait_for(g, timeout,
                [&] { return closing.load() || latest(id) > cursor; });
    --held_watches;
  }
  json events = json::array();
  auto next = cursor;
  for (auto& ev : logs[id])
    if (ev["seq"].get<int64_t>() > cursor && events.size() < limit) {
      events.push_back(ev);
      next = ev["seq"].get<int64_t>();
    }
  answer(res, {{"sessionId", id}, {"cursor", next}, {"events", events}});
}

void fake_mochat::impl::on_panel_messages(const httplib::Request& req,
                                          httplib::Response& res) {
  std::lock_guard<std::mutex> g{mx};
  if (!authorized(req, res))
    return;
  auto body = json::parse(req.body, nullptr, false);
  if (!body.is_object() || !body.value("panelId", json{}).is_string()
      || !body.value("limit", json{}).is_number_integer()) {
    res.status = 400;
    return;
  }
  panel_reads.push_back(body);
  cv.notify_all();
  if (polls_fail) {
    res.status = 503;
    return;
  }
  auto id = body["panelId"].get<std::string>();
  auto limit = body["limit"].get<size_t>();
  json messages = json::array(); // newest first
  auto& log = panel_logs[id];
  for (auto it = log.rbegin(); it != log.rend() && messages.size() < limit;
       ++it)
    messages.push_back(*it);
  answer(res, {{"groupId", panel_group[id]}, {"messages", messages}});
}

void fake_mochat::impl::install_routes() {
  this->rest.Post("/api/claw/sessions/watch",
                  [this](const httplib::Request& req, httplib::Response& res) {
                    this->on_watch(req, res);
                  });
  this->rest.Post("/api/claw/groups/panels/messages",
                  [this](const httplib::Request& req, httplib::Response& res) {
                    this->on_panel_messages(req, res);
                  });
  for (const char* p :
       {"/api/claw/sessions/send", "/api/claw/groups/panels/send"}) {
    std::string path = p;
    this->rest.Post(
      p, [this, path](const httplib::Request& req, httplib::Response& res) {
        this->on_send(path, req, res);
      });
  }
  this->rest.Post("/api/claw/sessions/list", [this](const httplib::Request& req,
                                                    httplib::Response& res) {
    std::lock_guard<std::mutex> g{this->mx};
    if (!this->authorized(req, res))
      return;
    json sessions = json::array();
    for (auto& [id, log] : this->logs)
      sessions.push_back({{"sessionId", id}, {"converseId", "conv-" + id}});
    this->answer(res, {{"sessions", sessions}});
  });
  this->rest.Post("/api/claw/groups/get", [this](const httplib::Request& req,
                                                 httplib::Response& res) {
    std::lock_guard<std::mutex> g{this->mx};
    if (this->authorized(req, res))
      this->answer(
        res, {{"panels", json::array({{{"id", "panel-1"}, {"type", 0}},
                                      {{"id", "voice-1"}, {"type", 1}}})}});
  });
}

} // namespace nb::test
