// fake_qq's state, shared by its files: the server and gateway threads
// (fake_qq.cpp) and the controls and observations a test uses
// (fake_qq_controls.cpp).
#pragma once

#include "tests/platforms/fake_qq.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <httplib.h>

#include "tests/platforms/fake_qq_upload.hpp"
#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

struct fake_qq::impl {
  int heartbeat_ms;
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  std::vector<std::pair<int64_t, json>> log; ///< every dispatch with its seq
  int64_t seq = 0;
  int64_t heartbeat_seq = 0; ///< the last seq a heartbeat confirmed
  int64_t sent_upto = 0;
  std::deque<std::string> raw;
  std::string session_id;
  bool drop_now = false, reconnect_now = false, invalidate_now = false;
  bool overlap = false;
  int limited = 0;
  double retry_after = 0;
  int lifetime = 7200;
  std::set<std::string> tokens;
  int token_fetches = 0, identifies = 0, resumes = 0, heartbeats = 0,
      sessions = 0;
  int64_t intents = -1;
  std::string identify_token;
  std::set<std::string> seen_seq; ///< msg_id/msg_seq pairs already posted
  std::vector<json> posts;
  int post_calls = 0;
  std::map<std::string, std::string> files;
  fake_qq_uploads uploads;
  httplib::Server rest;
  std::thread rest_thread;
  int rest_port = 0;
  std::unique_ptr<ws_listener> gateway;
  std::atomic<bool> closing{false};

  bool authed(const httplib::Request& req, httplib::Response& res) {
    auto auth = req.get_header_value("Authorization");
    std::lock_guard<std::mutex> g{mx};
    if (auth.rfind("QQBot ", 0) == 0 && tokens.count(auth.substr(6)) > 0
        && req.get_header_value("X-Union-Appid") == app_id)
      return true;
    res.status = 401;
    res.set_content(R"({"message":"token not exist or expire","code":11244})",
                    "application/json");
    return false;
  }

  void send_dispatches(chan::ws_connection& c, std::unique_lock<std::mutex>& g) {
    std::vector<std::string> out;
    for (auto& [s, ev] : log)
      if (s > sent_upto)
        out.push_back(ev.dump());
    while (!raw.empty()) {
      out.push_back(raw.front());
      raw.pop_front();
    }
    if (!log.empty())
      sent_upto = std::max(sent_upto, log.back().first);
    g.unlock();
    for (auto& text : out)
      c.send(text);
    g.lock();
  }

  void serve(chan::ws_connection& c) {
    c.send(json{{"op", 10}, {"d", {{"heartbeat_interval", heartbeat_ms}}}}
             .dump());
    auto first = c.read(std::chrono::seconds(5));
    auto j = first ? json::parse(*first, nullptr, false) : json{};
    std::unique_lock<std::mutex> g{mx};
    auto token = j.is_object() && j.contains("d") && j["d"].is_object()
                   ? j["d"].value("token", "") : "";
    if (token.rfind("QQBot ", 0) != 0 || tokens.count(token.substr(6)) == 0) {
      g.unlock();
      c.close(4004, "invalid token");
      return;
    }
    if (j.value("op", 0) == 2) {
      ++identifies;
      identify_token = token;
      intents = j["d"].value("intents", int64_t{-1});
      session_id = "qq-sess-" + std::to_string(identifies);
      json ready{{"op", 0}, {"t", "READY"}, {"s", ++seq},
                 {"d", {{"version", 1}, {"session_id", session_id},
                        {"user", {{"id", "11"}, {"username", "nano-bot"},
                                  {"bot", true}}},
                        {"shard", {0, 1}}}}};
      sent_upto = seq;
      ++sessions;
      g.unlock();
      c.send(ready.dump());
      g.lock();
    } else if (j.value("op", 0) == 6) {
      ++resumes;
      if (j["d"].value("session_id", "") != session_id) {
        g.unlock();
        c.send(json{{"op", 9}, {"d", false}}.dump());
        c.close(4006, "invalid session id");
        return;
      }
      sent_upto = j["d"].value("seq", int64_t{0}) - (overlap ? 1 : 0);
      send_dispatches(c, g);
      ++sessions;
      json resumed{{"op", 0}, {"t", "RESUMED"}, {"s", ++seq}, {"d", ""}};
      g.unlock();
      c.send(resumed.dump());
      g.lock();
    }
    cv.notify_all();
    while (!closing.load() && c.is_open()) {
      if (drop_now) {
        drop_now = false;
        c.drop();
        break;
      }
      if (reconnect_now || invalidate_now) {
        json op = reconnect_now ? json{{"op", 7}} : json{{"op", 9}, {"d", false}};
        reconnect_now = invalidate_now = false;
        g.unlock();
        c.send(op.dump());
        g.lock();
      }
      send_dispatches(c, g);
      g.unlock();
      auto msg = c.read(std::chrono::milliseconds(20));
      g.lock();
      if (!msg)
        continue;
      auto p = json::parse(*msg, nullptr, false);
      if (p.is_object() && p.value("op", 0) == 1) {
        ++heartbeats;
        if (p["d"].is_number_integer())
          heartbeat_seq = p["d"].get<int64_t>();
        g.unlock();
        c.send(json{{"op", 11}}.dump());
        g.lock();
      }
    }
  }

  void post_message(const httplib::Request& req, httplib::Response& res,
                    const char* kind) {
    if (!authed(req, res))
      return;
    std::lock_guard<std::mutex> g{mx};
    ++post_calls;
    if (limited > 0) {
      --limited;
      res.status = 429;
      res.set_content(json{{"message", "rate limited"}, {"code", 22009},
                           {"retry_after", retry_after}}
                        .dump(),
                      "application/json");
      return;
    }
    auto body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.value("msg_type", json{}).is_number_integer()) {
      res.status = 400;
      res.set_content(R"({"message":"invalid request","code":40034001})",
                      "application/json");
      return;
    }
    auto key = body.value("msg_id", "") + "/"
               + std::to_string(body.value("msg_seq", 0));
    if (!body.value("msg_id", "").empty() && !seen_seq.insert(key).second) {
      res.status = 400;
      res.set_content(R"({"message":"消息被去重，请检查请求msgseq","code":40054005})",
                      "application/json");
      return;
    }
    json rec{
      {"kind", kind},
      {"target", req.matches[1]},
      {"msg_type", body["msg_type"]},
      {"msg_id", body.value("msg_id", "")},
      {"msg_seq", body.value("msg_seq", 0)},
      {"content", body.value("content", "")},
      {"media", body.value("media", json{})},
      {"markdown", body.contains("markdown") && body["markdown"].is_object()
                     ? body["markdown"].value("content", "")
                     : ""}};
    posts.push_back(rec);
    cv.notify_all();
    res.set_content(json{{"id", "sent-" + std::to_string(posts.size())},
                         {"timestamp", "2026-12-02T12:00:00+08:00"}}
                      .dump(),
                    "application/json");
  }
};

} // namespace nb::test
