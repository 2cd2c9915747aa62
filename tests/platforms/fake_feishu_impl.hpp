// The scripted Feishu's insides, shared by its socket side
// (fake_feishu.cpp) and its Open API routes (fake_feishu_rest.cpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "actors/channels/feishu/feishu_frame.hpp"
#include "tests/platforms/fake_feishu.hpp"
#include "tests/platforms/ws_listener.hpp"

namespace nb::test {

using nlohmann::json;
using feishu::frame;

inline constexpr int32_t service_id = 33;

inline json client_config(int ping_s) {
  return json{{"ReconnectCount", -1}, {"ReconnectInterval", 1},
              {"ReconnectNonce", 0}, {"PingInterval", ping_s}};
}

struct fake_feishu::impl {
  mutable std::mutex mx;
  mutable std::condition_variable cv;
  /// One event as Feishu keeps it until acknowledged.
  struct delivery {
    std::string id;                ///< the frames' message_id header
    std::vector<std::string> parts;
    bool due = true;
    bool acked = false;
  };
  std::vector<delivery> deliveries;
  std::deque<std::string> raw;
  std::vector<std::string> acked;
  std::vector<int> ack_codes;
  std::vector<json> sent, reactions, uploads;
  std::map<std::string, std::string> resources;
  /// CardKit cards by card_id: {"card_id", "card", "text", "streaming",
  /// "sequence", "updates", "refused"}, and their ids in creation order.
  std::map<std::string, json> cards;
  std::vector<std::string> card_order;
  bool refuse_cards = false;
  bool drop_now = false, ignore_acks = false, limit_by_code = false;
  int limited = 0, reset_s = 1, connections = 0, pings = 0, send_calls = 0;
  int token_fetches = 0, ping_s = 120;
  std::string token;
  uint64_t seq = 0;
  httplib::Server rest;
  std::thread rest_thread;
  int rest_port = 0;
  std::unique_ptr<ws_listener> socket;
  std::atomic<bool> closing{false};

  std::string queue(std::vector<std::string> parts) {
    std::lock_guard<std::mutex> g{mx};
    auto id = "ws-msg-" + std::to_string(deliveries.size() + 1);
    deliveries.push_back({id, std::move(parts), true, false});
    return id;
  }

  /// The data frames of `d`, numbered on.
  std::vector<std::string> frames_of(const delivery& d) {
    std::vector<std::string> out;
    for (size_t i = 0; i < d.parts.size(); ++i) {
      frame f;
      f.seq_id = ++seq;
      f.log_id = 7000 + seq;
      f.service = service_id;
      f.method = static_cast<int32_t>(feishu::frame_method::data);
      f.headers = {{"type", "event"},
                   {"message_id", d.id},
                   {"sum", std::to_string(d.parts.size())},
                   {"seq", std::to_string(i)},
                   {"trace_id", "trace-" + std::to_string(seq)}};
      f.payload = d.parts[i];
      f.log_id_new = "log-" + std::to_string(seq);
      out.push_back(feishu::encode(f));
    }
    return out;
  }

  /// Takes one frame from the client (lock held).
  void take(const std::string& bytes, chan::ws_connection& c) {
    std::string err;
    auto f = feishu::decode(bytes, err);
    if (!f)
      return;
    if (f->method == static_cast<int32_t>(feishu::frame_method::control)) {
      if (f->header("type") != "ping")
        return;
      ++pings;
      frame pong;
      pong.service = service_id;
      pong.headers = {{"type", "pong"}};
      pong.payload = client_config(ping_s).dump();
      c.send_binary(feishu::encode(pong));
      cv.notify_all();
      return;
    }
    auto body = json::parse(f->payload, nullptr, false);
    if (!body.is_object() || f->header("biz_rt").empty())
      return;
    auto id = f->header("message_id");
    int code = body.value("code", 0);
    ack_codes.push_back(code);
    if (code == 200) {
      acked.push_back(id);
      if (!ignore_acks)
        for (auto& d : deliveries)
          if (d.id == id)
            d.acked = true;
    }
    cv.notify_all();
  }

  void serve(chan::ws_connection& c) {
    {
      std::lock_guard<std::mutex> g{mx};
      ++connections;
      for (auto& d : deliveries)
        d.due = !d.acked; // not acknowledged: sent again
    }
    cv.notify_all();
    std::unique_lock<std::mutex> g{mx};
    while (!closing.load() && c.is_open()) {
      if (drop_now) {
        drop_now = false;
        c.drop();
        break;
      }
      std::vector<std::string> out;
      for (auto& d : deliveries)
        if (!d.acked && d.due) {
          d.due = false;
          for (auto& f : frames_of(d))
            out.push_back(std::move(f));
        }
      while (!raw.empty()) {
        out.push_back(std::move(raw.front()));
        raw.pop_front();
      }
      g.unlock();
      for (auto& f : out)
        c.send_binary(f);
      auto msg = c.read(std::chrono::milliseconds(20));
      g.lock();
      if (msg)
        take(*msg, c);
    }
  }

  static void answer(httplib::Response& res, const json& body,
                     int status = 200) {
    res.status = status;
    res.set_content(body.dump(), "application/json; charset=utf-8");
  }

  /// False (and the answer written) when the call lacks the current token.
  bool authorised(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> g{mx};
    if (!token.empty()
        && req.get_header_value("Authorization") == "Bearer " + token)
      return true;
    answer(res, {{"code", 99991663},
                 {"msg", "Invalid access token for authorization."}},
           400);
    return false;
  }

  void routes();
  /// The CardKit routes (fake_feishu_cards.cpp).
  void card_routes();
};

} // namespace nb::test
