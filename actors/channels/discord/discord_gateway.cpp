#include "actors/channels/discord/discord_gateway.hpp"

#include <nlohmann/json.hpp>

#include "actors/channels/discord/discord_event.hpp"
#include "actors/channels/kit/hand_over.hpp"
#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/op_gateway.hpp"
#include "actors/common/log.hpp"

namespace nb::discord {

namespace {

using nlohmann::json;

/// What Discord's side of the gateway remembers between events.
struct discord_side {
  discord_config cfg;
  chan::adapter_front_actor front;
  std::shared_ptr<spdlog::logger> lg;
  gateway_view view;
};

std::string gateway_url(discord_side& d, std::string& error, bool& fatal) {
  if (!d.cfg.gateway_url.empty())
    return d.cfg.gateway_url;
  chan::http_endpoint http{d.cfg.api_base};
  auto r = http.call("GET", "/gateway/bot", "",
                     {{"Authorization", "Bot " + d.cfg.token}},
                     std::chrono::seconds(15));
  if (r.ok() && r.json.is_object() && r.json.contains("url")
      && r.json["url"].is_string())
    return r.json["url"].get<std::string>();
  error = "GET /gateway/bot: "
          + (r.status ? "HTTP " + std::to_string(r.status) + " "
                          + r.body.substr(0, 200)
                      : r.error);
  fatal = r.status == 401;
  return "";
}

bool dispatch(discord_side& d, const std::string& type, const json& data) {
  note_threads(d.view, type, data);
  if (type != "MESSAGE_CREATE")
    return true;
  std::string why;
  auto in = parse_message(data, d.view, d.cfg.name, why);
  if (!in) {
    if (why == "malformed MESSAGE_CREATE")
      d.lg->warn("{} ignored", why);
    return true;
  }
  if (auto why = chan::hand_over_one(d.front, std::move(*in)); !why.empty()) {
    d.lg->warn("message not confirmed (a RESUME replays it): {}", why);
    return false;
  }
  return true;
}

} // namespace

std::unique_ptr<chan::inbound_loop>
start_gateway(discord_config cfg, chan::adapter_front_actor front) {
  auto d = std::make_shared<discord_side>();
  d->cfg = std::move(cfg);
  d->front = front;
  d->lg = log::get("channel." + d->cfg.name);
  d->view.allow_channels = d->cfg.allow_channels;
  chan::gateway_protocol p;
  p.name = d->cfg.name;
  p.query = "v=10&encoding=json";
  p.gateway_url = [d](std::string& error, bool& fatal) {
    return gateway_url(*d, error, fatal);
  };
  p.identify = [d](std::string&, bool&) {
    return json{{"token", d->cfg.token},
                {"intents", d->cfg.intents},
                {"properties", {{"os", "linux"}, {"browser", "nanobot"},
                                {"device", "nanobot"}}}};
  };
  p.resume = [d](const std::string& session_id, int64_t seq, std::string&,
                 bool&) {
    return json{{"token", d->cfg.token}, {"session_id", session_id},
                {"seq", seq}};
  };
  p.ready = [d](const json& data) {
    auto user = data.value("user", json::object());
    d->view.bot_id = user.is_object() ? user.value("id", "") : "";
    chan::gateway_ready r;
    r.detail = "as " + (user.is_object() ? user.value("username", "?") : "?");
    r.resume_url = data.value("resume_gateway_url", "");
    return r;
  };
  p.dispatch = [d](const std::string& type, const json& data) {
    return dispatch(*d, type, data);
  };
  // 4004 bad token, 4010-4014 bad shard, version or intents.
  p.fatal_close = [](int code) {
    return code == 4004 || (code >= 4010 && code <= 4014);
  };
  // 4007 bad sequence, 4009 session timed out.
  p.session_lost_close = [](int code) { return code == 4007 || code == 4009; };
  return chan::start_op_gateway(std::move(p), std::move(front));
}

} // namespace nb::discord
