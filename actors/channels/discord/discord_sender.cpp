#include "actors/channels/discord/discord_sender.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/channels/kit/text_split.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::discord {

namespace {

using nlohmann::json;

constexpr size_t piece_limit = 2000;

struct sender_state {
  sender_state() = default;
  static inline const char* name = "discord_sender";
  discord_config cfg;
  std::unique_ptr<chan::http_endpoint> http;
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

/// "" once Discord accepted the piece, else why not.
std::string post(sender_state& st, const std::string& channel_id,
                 const std::string& text) {
  json body{{"content", text}, {"allowed_mentions", {{"parse", json::array()}}}};
  auto r = chan::call_waiting_out_429(
    *st.http, "POST", "/channels/" + chan::url_encode(channel_id) + "/messages",
    body.dump(), {{"Authorization", "Bot " + st.cfg.token}});
  if (r.ok())
    return "";
  if (r.status == 0)
    return r.error;
  return "HTTP " + std::to_string(r.status) + " "
         + (r.json.is_object() && r.json.contains("message")
              ? r.json["message"].dump() : r.body.substr(0, 200));
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              discord_config cfg) {
  name_thread("discord.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.http = std::make_unique<chan::http_endpoint>(cfg.api_base);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      for (auto& piece : chan::split_text(m.content, piece_limit))
        if (auto err = post(self->state, m.chat_id, piece); !err.empty())
          return caf::make_error(caf::sec::runtime_error,
                                 "discord send to " + m.chat_id + ": " + err);
      return caf::ok_atom::value;
    }),
    [](const inbound_msg&) {},
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, discord_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::discord
