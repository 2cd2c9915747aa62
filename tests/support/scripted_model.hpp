// A stand-in for the model on the provider's typed interface (no HTTP), for
// tests of the session and what it drives: it answers "echo: <the user's
// text>" (the runtime block left out), or holds the request when the text
// says "hold", as a slow model would; the test can ask what it was sent.
#pragma once

#include <string>
#include <vector>

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "messages/model.hpp"
#include "messages/session.hpp"

namespace nb::test {

/// The stand-in model's wider interface: the test asks it what it was sent.
/// (get_atom: each request's model; get_atom + cancel_turn_atom: the
/// request ids cancelled.)
using scripted_model_actor = provider_actor::extend<
  caf::replies_to<caf::get_atom>::with<std::vector<std::string>>,
  caf::replies_to<caf::get_atom, cancel_turn_atom>::with<
    std::vector<std::string>>>;

struct scripted_model_state {
  scripted_model_state() = default;
  static inline const char* name = "scripted_model";
  std::vector<std::string> models; ///< each request's model
  /// Requests held unanswered (the user's text contained "hold").
  std::vector<caf::typed_response_promise<model_reply>> held;
  /// The request ids the session's runners cancelled (a /stop).
  std::vector<std::string> cancelled;
};

/// Answers "echo: <the user's text>" (without the runtime block), or holds
/// the request when the text asks for it, as a slow model would.
inline scripted_model_actor::behavior_type scripted_model(
  scripted_model_actor::stateful_pointer<scripted_model_state> self) {
  return {
    [=](model_request& rq) -> caf::result<model_reply> {
      auto& st = self->state;
      st.models.push_back(rq.model);
      auto msgs = nlohmann::json::parse(rq.messages_json);
      auto text = msgs.back().value("content", nlohmann::json("")).is_string()
                    ? msgs.back()["content"].get<std::string>()
                    : std::string{};
      text = text.substr(0, text.find("\n\n[Runtime Context"));
      text = text.substr(0, text.find("\n[Runtime Context"));
      if (text.find("hold") != std::string::npos) {
        auto rp = self->make_response_promise<model_reply>();
        st.held.push_back(rp);
        return rp;
      }
      model_reply r;
      r.content = "echo: " + text;
      r.finish_reason = "stop";
      r.usage.prompt_tokens = 100;
      r.usage.completion_tokens = 5;
      r.usage.total_tokens = 105;
      return r;
    },
    [=](model_cancel& c) { self->state.cancelled.push_back(c.request_id); },
    [=](caf::get_atom) { return self->state.models; },
    [=](caf::get_atom, cancel_turn_atom) { return self->state.cancelled; },
  };
}

} // namespace nb::test
