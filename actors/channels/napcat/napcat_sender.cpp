#include "actors/channels/napcat/napcat_sender.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/media_out.hpp"
#include "actors/channels/napcat/napcat_media.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"

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

json text_segment(const std::string& text) {
  return {{"type", "text"}, {"data", {{"text", text}}}};
}

/// "" when NapCat confirmed the send of `segments`, else why not.
std::string send(sender_state& st, const std::string& chat_id, json segments) {
  std::string action;
  json params;
  if (!target_of(chat_id, action, params))
    return "not a napcat chat id (private:<user> or group:<group>)";
  params["message"] = std::move(segments);
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

/// The words with the pictures in one message, as the original sends
/// them; sound, video and files each alone after it (QQ shows those only
/// on their own). An attachment that cannot go is logged, naming it, and
/// skipped; pictures NapCat refuses leave the words to go alone. Only the
/// words' failure is an error (for the manager to retry).
std::string deliver(sender_state& st, const outbound_msg& m) {
  auto lg = log::get("channel." + st.cfg.name);
  json first = json::array();
  std::vector<std::pair<std::string, json>> alone; ///< by its file
  std::string pictures;
  for (const auto& ref : chan::outbound_media(m.metadata_json)) {
    json seg;
    if (auto err = media_segment(ref, seg); !err.empty()) {
      lg->warn("attachment {} for chat {} not sent: {}", ref, m.chat_id, err);
      continue;
    }
    if (seg["type"] == "image") {
      first.push_back(std::move(seg));
      pictures += (pictures.empty() ? "" : ", ") + ref;
    } else {
      alone.emplace_back(ref, std::move(seg));
    }
  }
  if (!m.content.empty())
    first.push_back(text_segment(m.content));
  if (!first.empty()) {
    auto err = send(st, m.chat_id, first);
    if (!err.empty() && pictures.empty())
      return err;
    if (!err.empty()) {
      lg->warn("attachment(s) {} for chat {} not sent: {}", pictures, m.chat_id,
               err);
      if (!m.content.empty())
        if (auto e2 =
              send(st, m.chat_id, json::array({text_segment(m.content)}));
            !e2.empty())
          return e2;
    }
  }
  for (auto& [ref, seg] : alone)
    if (auto err = send(st, m.chat_id, json::array({seg})); !err.empty())
      lg->warn("attachment {} for chat {} not sent: {}", ref, m.chat_id, err);
  return "";
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              napcat_config cfg,
                                              std::shared_ptr<action_line> line) {
  name_thread("napcat.send"); // detached: this is its own thread
  self->state.cfg = std::move(cfg);
  self->state.line = std::move(line);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      if (auto err = deliver(self->state, m); !err.empty())
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
