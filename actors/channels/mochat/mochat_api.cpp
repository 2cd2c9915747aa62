#include "actors/channels/mochat/mochat_api.hpp"

#include "actors/channels/mochat/mochat_event.hpp"

namespace nb::mochat {

using nlohmann::json;

rest_api::rest_api(const mochat_config& cfg) : cfg_(cfg), http_(cfg.base_url) {}

std::map<std::string, std::string> api_headers(const mochat_config& cfg) {
  return {{"X-Claw-Token", cfg.claw_token}, {"Accept", "application/json"}};
}

std::string api_body(const json& body) {
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

api_answer rest_api::post(const std::string& path, const json& body,
                          std::chrono::seconds timeout) {
  return read_api_answer(chan::call_waiting_out_429(
    http_, "POST", path, api_body(body), api_headers(cfg_), 20, 3, timeout));
}

api_answer read_api_answer(const chan::http_reply& r) {
  api_answer out;
  if (r.status == 0) {
    out.error = r.error.empty() ? "no answer" : r.error;
    return out;
  }
  if (!r.ok()) {
    out.bad_token = r.status == 401 || r.status == 403;
    out.error =
      "HTTP " + std::to_string(r.status) + ": " + r.body.substr(0, 200);
    return out;
  }
  if (r.json.is_object()) {
    auto code = r.json.find("code");
    if (code != r.json.end() && code->is_number_integer()) {
      if (code->get<int64_t>() != 200) {
        auto why = r.json.value("message", json{});
        if (!why.is_string())
          why = r.json.value("name", json("request failed"));
        out.bad_token = code->get<int64_t>() == 401;
        out.error = "Mochat API error: "
                    + (why.is_string() ? why.get<std::string>() : why.dump())
                    + " (code=" + std::to_string(code->get<int64_t>()) + ")";
        return out;
      }
      auto data = r.json.find("data");
      if (data != r.json.end() && data->is_object())
        out.data = *data;
      return out;
    }
    out.data = r.json;
  }
  return out;
}

std::pair<std::string, json> send_request(const std::string& chat_id,
                                          const std::string& text,
                                          const std::string& group_id,
                                          const std::string& reply_to) {
  auto target = resolve_target(chat_id);
  if (target.id.empty())
    return {"", json{}};
  json body;
  std::string path;
  if (target.is_panel) {
    path = "/api/claw/groups/panels/send";
    body = {{"panelId", target.id}, {"content", text}};
    if (!group_id.empty())
      body["groupId"] = group_id;
  } else {
    path = "/api/claw/sessions/send";
    body = {{"sessionId", target.id}, {"content", text}};
  }
  if (!reply_to.empty())
    body["replyTo"] = reply_to;
  return {path, body};
}

} // namespace nb::mochat
