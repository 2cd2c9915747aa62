#include "actors/channels/napcat/napcat_sender.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/common/guard.hpp"

namespace nb::napcat {

namespace {

using nlohmann::json;

struct sender_state {
  sender_state() = default;
  static inline const char* name = "napcat_sender";
  napcat_config cfg;
  std::shared_ptr<action_line> line;
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

bool numeric(const std::string& s) {
  return !s.empty() && s.size() < 19
         && s.find_first_not_of("0123456789") == std::string::npos;
}

/// "" when NapCat confirmed the send, else why not.
std::string send(sender_state& st, const std::string& chat_id,
                 const std::string& text) {
  std::string action;
  json params;
  if (!target_of(chat_id, action, params))
    return "not a napcat chat id (private:<user> or group:<group>)";
  params["message"] = json::array({{{"type", "text"}, {"data", {{"text", text}}}}});
  auto r = st.line->call(action, std::move(params),
                         std::chrono::seconds(st.cfg.action_timeout_s));
  if (!r.error.empty())
    return r.error;
  auto status = r.answer.value("status", json{});
  auto retcode = r.answer.value("retcode", json{});
  if (status == "ok" && retcode == 0)
    return "";
  std::string why = action + " answered status=" + status.dump()
                    + " retcode=" + retcode.dump();
  for (auto key : {"wording", "message", "msg"})
    if (r.answer.contains(key) && r.answer[key].is_string()
        && !r.answer[key].get<std::string>().empty())
      return why + ": " + r.answer[key].get<std::string>();
  return why;
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              napcat_config cfg,
                                              std::shared_ptr<action_line> line) {
  self->state.cfg = std::move(cfg);
  self->state.line = std::move(line);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      if (m.content.empty())
        return caf::ok_atom::value;
      if (auto err = send(self->state, m.chat_id, m.content); !err.empty())
        return caf::make_error(caf::sec::runtime_error,
                               "napcat send to " + m.chat_id + ": " + err);
      return caf::ok_atom::value;
    }),
    [](const inbound_msg&) {},
  };
}

} // namespace

bool target_of(const std::string& chat_id, std::string& action,
               json& params) {
  auto colon = chat_id.find(':');
  if (colon == std::string::npos)
    return false;
  auto kind = chat_id.substr(0, colon);
  auto id = chat_id.substr(colon + 1);
  if (!numeric(id))
    return false;
  if (kind == "group") {
    action = "send_group_msg";
    params = json{{"group_id", std::stoll(id)}};
  } else if (kind == "private") {
    action = "send_private_msg";
    params = json{{"user_id", std::stoll(id)}};
  } else {
    return false;
  }
  return true;
}

chan::sender_actor spawn_sender(caf::actor_system& sys, napcat_config cfg,
                                std::shared_ptr<action_line> line) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg),
                                  std::move(line));
}

} // namespace nb::napcat
