// The scripted Mochat's insides, shared by its Socket.IO side
// (fake_mochat.cpp) and its REST routes (fake_mochat_rest.cpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <httplib.h>

#include "tests/platforms/fake_mochat.hpp"
#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;

struct fake_mochat::impl {
  int ping_interval = 1000, ping_timeout = 1000;
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  // The Socket.IO side.
  bool connected = false;
  std::set<std::string> subscribed;
  std::deque<json> queued; ///< {name, payload, panel?} or {raw}
  std::map<std::string, std::vector<json>> logs; ///< session -> events
  std::vector<std::pair<std::string, json>> unacked_panel; ///< id, payload
  std::map<int64_t, std::string> outstanding; ///< ack id -> panel message id
  bool drop_now = false, pings = true, refuse = false, polls_fail = false;
  bool silent = false; ///< WebSockets taken and never spoken to
  int silent_held = 0; ///< such connections open right now
  int connections = 0, refused = 0, pongs = 0;
  size_t acked = 0;
  std::vector<json> subscriptions;
  std::vector<std::string> targets;
  // The REST side.
  int limited = 0, send_calls = 0;
  std::vector<json> sends;
  std::map<std::string, std::vector<json>> panel_logs; ///< panel -> messages
  std::map<std::string, std::string> panel_group;
  std::vector<json> watches, panel_reads;
  int held_watches = 0; ///< long polls waiting for news right now
  std::chrono::milliseconds instant_delay{0}; ///< timeoutMs 0 answered late
  int watches_to_limit = 0, watches_limited = 0; ///< 429s to give, given
  httplib::Server rest;
  std::thread rest_thread;
  int rest_port = 0;
  std::unique_ptr<ws_listener> ws;
  std::atomic<bool> closing{false};

  /// Now as Mochat writes times: "2026-12-03T08:00:00.123Z".
  static std::string now_iso() {
    auto now = std::chrono::system_clock::now();
    auto t = std::chrono::system_clock::to_time_t(now);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                now.time_since_epoch())
                .count()
              % 1000;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                  tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    return buf;
  }

  static json message_add(int64_t seq, const std::string& id,
                          const std::string& author, const std::string& text,
                          const std::string& group, const std::string& converse,
                          bool mention, const std::string& at = "") {
    json meta = json::object();
    if (mention)
      meta["mentions"] = json::array({agent});
    json ev{{"type", "message.add"},
            {"timestamp", at.empty() ? now_iso() : at},
            {"payload",
             {{"messageId", id},
              {"author", author},
              {"content", text},
              {"meta", meta},
              {"groupId", group},
              {"converseId", converse},
              {"authorInfo", {{"nickname", "nick-" + author}}}}}};
    if (seq >= 0)
      ev["seq"] = seq;
    return ev;
  }

  int64_t latest(const std::string& session) const {
    auto it = logs.find(session);
    return it == logs.end() || it->second.empty()
             ? 0
             : it->second.back()["seq"].get<int64_t>();
  }

  /// The answer to subscribeSessions: per session what follows its cursor
  /// (the recent history when it has none).
  json subscribe(const json& req);
  void client_frame(chan::ws_connection& c, const std::string& f);
  void serve(chan::ws_connection& c);
  /// A silent socket: held open without a word until the client goes.
  void hold_silent(chan::ws_connection& c);

  /// The REST routes (fake_mochat_rest.cpp).
  void install_routes();
  bool authorized(const httplib::Request& req, httplib::Response& res);
  void answer(httplib::Response& res, const json& data);
  void on_send(const std::string& path, const httplib::Request& req,
               httplib::Response& res);
  void on_watch(const httplib::Request& req, httplib::Response& res);
  void on_panel_messages(const httplib::Request& req, httplib::Response& res);
};

} // namespace nb::test
