#include "actors/channels/qq/qq_gateway.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/media_file.hpp"
#include "actors/channels/kit/op_gateway.hpp"
#include "actors/channels/qq/qq_api.hpp"
#include "actors/channels/qq/qq_event.hpp"
#include "actors/common/log.hpp"

namespace nb::qq {

namespace {

using nlohmann::json;

/// QQ's side of the gateway (used by the loop thread only).
struct qq_side {
  explicit qq_side(qq_config c) : cfg(std::move(c)), api(cfg) {}
  qq_config cfg;
  qq_api api; ///< refers to cfg: declared after it
  chan::adapter_front_actor front;
  std::shared_ptr<spdlog::logger> lg;
};

void save_attachments(qq_side& q, qq_message& m) {
  std::error_code ec;
  std::filesystem::create_directories(q.cfg.media_dir, ec);
  for (size_t i = 0; i < m.attachments.size(); ++i) {
    const auto& a = m.attachments[i];
    auto label = a.filename.empty() ? a.url : a.filename;
    if (a.size > q.cfg.max_media_bytes) {
      chan::add_note(m.msg.content,
                     "[file " + label + " skipped: over the size limit]");
      continue;
    }
    auto name = a.filename.empty() ? "file" + chan::extension_for_mime(a.content_type)
                                   : a.filename;
    auto dest = q.cfg.media_dir + "/"
                + chan::safe_media_name(m.message_id + "_" + std::to_string(i)
                                        + "_" + name);
    if (auto err = chan::download_file(a.url, dest, q.cfg.max_media_bytes);
        !err.empty()) {
      q.lg->warn("attachment {} not saved: {}", label, err);
      chan::add_note(m.msg.content,
                     "[file " + label + " unavailable: " + err + "]");
      continue;
    }
    m.msg.media.push_back(dest);
    chan::add_note(m.msg.content, chan::media_tag(dest));
  }
}

bool dispatch(qq_side& q, const std::string& type, const json& d) {
  if (type != "C2C_MESSAGE_CREATE" && type != "GROUP_AT_MESSAGE_CREATE")
    return true;
  std::string why;
  auto m = read_message(type, d, q.cfg.name, why);
  if (!m) {
    if (why.rfind("malformed", 0) == 0)
      q.lg->warn("{} ignored", why);
    return true;
  }
  save_attachments(q, *m);
  auto chat = m->msg.chat_id;
  bool admitted = false;
  if (auto why = chan::hand_over_one(q.front, std::move(m->msg), &admitted);
      !why.empty()) {
    q.lg->warn("message not confirmed (a Resume replays it): {}", why);
    return false;
  }
  if (admitted && !q.cfg.ack_message.empty()) {
    qq_post ack{m->group, chat, q.cfg.ack_message, m->message_id, 1, ""};
    if (auto err = q.api.post(ack); !err.empty())
      q.lg->warn("ack message not sent: {}", err);
  }
  return true;
}

} // namespace

std::unique_ptr<chan::inbound_loop> start_gateway(qq_config cfg,
                                                  chan::adapter_front_actor front) {
  auto q = std::make_shared<qq_side>(std::move(cfg));
  q->front = front;
  q->lg = log::get("channel." + q->cfg.name);
  chan::gateway_protocol p;
  p.name = q->cfg.name;
  p.gateway_url = [q](std::string& error, bool& fatal) {
    if (!q->cfg.gateway_url.empty())
      return q->cfg.gateway_url;
    return q->api.gateway_url(error, fatal);
  };
  p.identify = [q](std::string& error, bool& fatal) {
    auto auth = q->api.authorization(error, fatal);
    return json{{"token", auth},
                {"intents", q->cfg.intents},
                {"shard", {0, 1}},
                {"properties", {{"$os", "linux"}, {"$browser", "nanobot"},
                                {"$device", "nanobot"}}}};
  };
  p.resume = [q](const std::string& session_id, int64_t seq,
                 std::string& error, bool& fatal) {
    auto auth = q->api.authorization(error, fatal);
    return json{{"token", auth}, {"session_id", session_id}, {"seq", seq}};
  };
  p.ready = [](const json& d) {
    auto user = d.value("user", json::object());
    chan::gateway_ready r;
    r.detail = "as " + (user.is_object() && user.value("username", json{})
                                              .is_string()
                          ? user["username"].get<std::string>() : "?");
    return r;
  };
  p.dispatch = [q](const std::string& type, const json& d) {
    return dispatch(*q, type, d);
  };
  // 4004 bad token; 4914 the bot is offline (sandbox only); 4915 banned.
  p.fatal_close = [](int code) {
    return code == 4004 || code == 4914 || code == 4915;
  };
  // 4006 invalid session id, 4007 bad seq, 4009 session timed out.
  p.session_lost_close = [](int code) {
    return code == 4006 || code == 4007 || code == 4009;
  };
  return chan::start_op_gateway(std::move(p), std::move(front));
}

} // namespace nb::qq
