// The turn's inputs that need files, gathered off the scheduler thread:
// attached images (media_worker) and the system prompt (fetch_prompt, from
// the agent's workspace actor or, when it does not answer, a worker).
#include "actors/session/session.hpp"

#include <cstdlib>

#include <caf/event_based_actor.hpp>
#include <caf/spawn_options.hpp>

#include "actors/common/thread_name.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/common/image_content.hpp"
#include "actors/session/prompt.hpp"
#include "actors/session/session_steps.hpp"

namespace nb {

/// Reads the attached images on its own thread and answers with the user
/// message content (JSON text).
caf::behavior media_worker(caf::event_based_actor* self, std::string text,
                           std::vector<std::string> media) {
  name_thread("nb.media");
  return {
    [=](caf::get_atom) {
      self->quit();
      return user_content(text, media).dump();
    },
  };
}

namespace {

/// Builds the system prompt from the workspace files on its own thread:
/// the fallback when the workspace actor does not answer (file reads never
/// run on a scheduler thread).
caf::behavior prompt_worker(caf::event_based_actor* self, prompt_inputs in) {
  name_thread("nb.prompt");
  return {
    [=](caf::get_atom) {
      self->quit();
      system_prompt_cache fresh;
      return fresh.get(in);
    },
  };
}

} // namespace

/// Asks the agent's workspace actor for this turn's system prompt (the
/// files are its business), then `then`; without one, `then` at once.
void fetch_prompt(session_pointer self, std::function<void()> then) {
  auto& st = self->state;
  if (!st.svc.workspace) {
    then();
    return;
  }
  auto channel = st.turn->message.channel;
  prompt_request rq{st.key, channel, st.summary, st.summary_at};
  timed_request(self, st.svc.workspace, st.cfg.store_timeout, std::move(rq))
    .then(
      [=](prompt_reply& r) {
        if (self->state.turn && r.made)
          self->state.turn->system_made = std::move(r.made);
        else if (self->state.turn)
          self->state.turn->system_prompt = std::move(r.text);
        then();
      },
      [=](caf::error& err) {
        // A crashed workspace actor must not fail the chat's turns until
        // the session is re-created: build the prompt this once in a
        // worker of its own.
        auto& st = self->state;
        st.log->warn("[{}] the workspace actor did not answer ({}); the "
                     "prompt is built by a worker",
                     st.key, render(self, err));
        auto path = std::getenv("PATH");
        prompt_inputs in{st.cfg.workspace, channel,       st.key,
                         st.summary,       st.summary_at, path ? path : ""};
        auto worker = self->spawn<caf::detached>(prompt_worker, std::move(in));
        timed_request(self, worker, st.cfg.store_timeout, caf::get_atom::value)
          .then(
            [=](std::string& text) {
              if (self->state.turn)
                self->state.turn->system_prompt = std::move(text);
              then();
            },
            [=](caf::error& again) {
              // The turn still runs, without a system prompt.
              self->state.log->warn("[{}] no system prompt this turn: {}",
                                    self->state.key, render(self, again));
              then();
            });
      });
}

} // namespace nb
