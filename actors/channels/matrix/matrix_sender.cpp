#include "actors/channels/matrix/matrix_sender.hpp"

#include <functional>
#include <map>

#include <caf/all.hpp>

#include "actors/channels/kit/markdown_html.hpp"
#include "actors/channels/kit/text_split.hpp"
#include "actors/channels/matrix/matrix_sync.hpp"
#include "actors/common/guard.hpp"
#include "actors/common/thread_name.hpp"

namespace nb::matrix {

namespace {

using nlohmann::json;

constexpr size_t piece_limit = 16000;

struct sender_state {
  sender_state() = default;
  static inline const char* name = "matrix_sender";
  matrix_config cfg;
  std::unique_ptr<chan::http_endpoint> http;
  std::string token;
  std::map<std::string, int> delivered; ///< txn base -> sends that worked
};

using sender_pointer = chan::sender_actor::stateful_pointer<sender_state>;

/// The access token, logging in with the password on first use.
std::string token(sender_state& st, std::string& err) {
  if (!st.token.empty())
    return st.token;
  if (!st.cfg.access_token.empty())
    return st.token = st.cfg.access_token;
  json body{{"type", "m.login.password"},
            {"identifier", {{"type", "m.id.user"}, {"user", st.cfg.user_id}}},
            {"password", st.cfg.password},
            {"initial_device_display_name", "nanobot sender"}};
  auto r = cs_call(*st.http, "", "POST", "/_matrix/client/v3/login", body);
  if (r.ok && r.body.value("access_token", json{}).is_string())
    st.token = r.body["access_token"].get<std::string>();
  else
    err = "login: " + r.error;
  return st.token;
}

chan::sender_actor::behavior_type sender_impl(sender_pointer self,
                                              matrix_config cfg) {
  name_thread("matrix.send"); // detached: this is its own thread
  self->state.cfg = cfg;
  self->state.http = std::make_unique<chan::http_endpoint>(cfg.homeserver);
  return {
    guard("channels", [self](outbound_msg& m) -> caf::result<caf::ok_atom> {
      auto& st = self->state;
      if (m.kind != outbound_kind::final_reply
          && m.kind != outbound_kind::progress)
        return caf::ok_atom::value;
      std::string err;
      auto tok = token(st, err);
      if (tok.empty())
        return caf::make_error(caf::sec::runtime_error, "matrix " + err);
      for (auto& piece : chan::split_text(m.content, piece_limit)) {
        auto base = std::to_string(std::hash<std::string>{}(
          m.chat_id + '\n' + m.session_key + '\n' + m.stream_id + '\n'
          + to_string(m.kind) + '\n' + piece));
        auto txn = "nb" + base + "-" + std::to_string(st.delivered[base]);
        json body{{"msgtype", m.kind == outbound_kind::progress ? "m.notice"
                                                                : "m.text"},
                  {"body", piece},
                  {"format", "org.matrix.custom.html"},
                  {"formatted_body", chan::markdown_to_html(piece)}};
        auto r = cs_call(*st.http, tok, "PUT",
                         "/_matrix/client/v3/rooms/" + chan::url_encode(m.chat_id)
                           + "/send/m.room.message/" + txn,
                         body);
        if (!r.ok) {
          if (r.status == 401)
            st.token.clear();
          return caf::make_error(caf::sec::runtime_error,
                                 "matrix send to " + m.chat_id + ": "
                                   + r.error);
        }
        ++st.delivered[base];
      }
      return caf::ok_atom::value;
    }),
    [](const inbound_msg&) {},
  };
}

} // namespace

chan::sender_actor spawn_sender(caf::actor_system& sys, matrix_config cfg) {
  return sys.spawn<caf::detached>(sender_impl, std::move(cfg));
}

} // namespace nb::matrix
