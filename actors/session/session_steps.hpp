// Helpers the turn states share across session_turn.cpp and
// session_command.cpp. Internal to nb_session.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/common/timed_request.hpp"
#include "actors/session/session.hpp"

namespace nb {

inline std::string render(session_pointer self, const caf::error& err) {
  return self->system().render(err);
}

/// Runs `work`; an exception becomes a failure of the current state instead
/// of killing the actor (and with it every message queued for this chat).
template <class F>
void guarded(session_pointer self, F&& work) {
  try {
    work();
  } catch (const std::exception& e) {
    fail(self, std::string{"internal error: "} + e.what());
  }
}

/// Each message's stored text.
inline std::vector<std::string> dump_all(const std::vector<nlohmann::json>& msgs) {
  std::vector<std::string> out;
  out.reserve(msgs.size());
  for (auto& m : msgs)
    out.push_back(m.dump());
  return out;
}

/// Each entry's stored text, its usage in place (transcript_entry).
inline std::vector<std::string> dump_all(const transcript_entries& msgs) {
  std::vector<std::string> out;
  out.reserve(msgs.size());
  for (auto& m : msgs)
    out.push_back(m.stored_text());
  return out;
}

/// Appends `msgs` to the session file; `then` runs once they are durable.
/// `conversation`: the file's provider_state becomes it (null: carried).
template <class Then>
void persist(session_pointer self, std::vector<nlohmann::json> msgs, std::string what,
             Then then, const conversation_state* conversation = nullptr) {
  auto& st = self->state;
  session_append rq;
  rq.key = st.key;
  rq.messages = dump_all(msgs);
  if (conversation) {
    rq.conversation_set = true;
    rq.conversation = *conversation;
  }
  // -1: the file's line is carried as it is (has_conversation stays).
  int kept = conversation ? conversation->record != nullptr : -1;
  timed_request(self, st.svc.store, st.cfg.store_timeout, std::move(rq))
    .then(
      [=](caf::ok_atom) mutable {
        if (kept >= 0)
          self->state.has_conversation = kept == 1;
        auto& tr = self->state.transcript;
        tr.insert(tr.end(), msgs.begin(), msgs.end());
        guarded(self, then);
      },
      [=](caf::error& err) {
        fail(self, "could not save " + what + " (" + render(self, err) + ")");
      });
}

// The two reply builders. Pick by what is answered:

/// The turn's final reply to the message it runs for: its chat, the turn's
/// stream id, and the turn's metadata (streamed, stop_reason, usage, the
/// goal strip on WebSocket).
outbound_msg turn_final_reply(session_pointer self, std::string text,
                              bool is_error);

/// A plain-text answer to a command `in` that arrived while a turn runs:
/// `in`'s chat, rendered as text, none of the running turn's metadata.
outbound_msg command_answer_to(session_pointer self, const inbound_msg& in,
                               std::string text);

/// The transcript entry for a user's message.
nlohmann::json user_message(const inbound_msg& in);

/// System input and messages from other sessions (send_session_message)
/// are never slash commands.
bool never_a_command(const inbound_msg& in);

/// For a message another session sent: who sent it and whether it waits
/// for a reply, one line for the runtime context ("" for any other input).
std::string session_mail_note(const std::string& metadata_json);

/// COMMAND: answers a slash command, or passes the message on.
void do_command(session_pointer self);

/// RUN: spawns the runner on the model's input and takes its outcome
/// (session_run.cpp).
void do_run(session_pointer self);

/// /skill and /evaluator-prompt [init] read or write workspace files: when
/// the agent has a workspace actor, it answers them and `answer` gets the
/// text (true); otherwise false and the command runs here as before.
bool ask_workspace(session_pointer self, const parsed_command& cmd,
                   std::function<void(std::string)> answer);

/// COMMAND: runs `cmd` with `ctx` and acts on its answer.
void run_parsed_command(session_pointer self, const parsed_command& cmd,
                        command_context ctx);

/// BUILD: the runtime-context lines of the CLI apps the turn's message
/// attaches or mentions (st.turn->cli_app_lines), read on a thread of
/// their own; then `then` (at once when the message names none).
void fetch_cli_app_lines(session_pointer self, std::function<void()> then);

} // namespace nb
