// The session's model choice (/model) and token usage: the preset its turns
// use, kept in the session file's metadata ("model_preset") so it survives
// a restart, and each turn's usage read back from its last assistant
// record (where the runner puts it).
#include "actors/session/session.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/session/session_steps.hpp"
#include "actors/session/transcript.hpp"

namespace nb {

using json = nlohmann::json;

namespace {

token_usage usage_from(const json& u, const char* prompt_key) {
  token_usage out;
  auto num = [&](const char* k) {
    auto i = u.find(k);
    return i != u.end() && i->is_number_integer() ? i->get<int64_t>()
                                                  : int64_t{0};
  };
  out.prompt_tokens = num(prompt_key);
  out.completion_tokens = num("completion_tokens");
  out.total_tokens = num("total_tokens");
  out.cached_tokens = num("cached_tokens");
  return out;
}

} // namespace

void load_model_choice(session_pointer self, const std::string& metadata_json) {
  auto& st = self->state;
  auto meta = json::parse(metadata_json, nullptr, false);
  if (!meta.is_object())
    meta = json::object();
  // The last turn's figures, so /status still has them after a restart.
  last_recorded_usage(st.transcript, st.last_turn_sum, st.last_usage);
  auto p = meta.find("model_preset");
  if (p == meta.end() || !p->is_string() || p->get<std::string>().empty())
    return;
  auto wanted = p->get<std::string>();
  auto name = find_preset(st.cfg.models, wanted);
  if (name.empty() || name == "default") {
    st.log->warn("[{}] the session's model preset \"{}\" is not in "
                 "agents.modelPresets any more; using agents.defaults",
                 st.key, wanted);
    return;
  }
  st.runtime = runtime_for(st.cfg.models, name);
  st.model = st.runtime.model;
}

bool adopt_model_choice(session_pointer self, const command_reply& reply) {
  auto& st = self->state;
  if (!reply.switch_preset || *reply.switch_preset == st.runtime.preset)
    return false;
  auto before = st.runtime.preset;
  st.runtime = runtime_for(st.cfg.models, *reply.switch_preset);
  st.model = st.runtime.model;
  st.log->info("[{}] model preset {} -> {} (model {})", st.key,
               before.empty() ? "default" : before,
               st.runtime.preset.empty() ? "default" : st.runtime.preset,
               st.model);
  return true;
}

void save_model_choice(session_pointer self, std::function<void()> then) {
  auto& st = self->state;
  // Merged into the metadata as loaded (the archive mark, ...), so other
  // keys survive; /new keeps it too.
  auto meta = st.file_meta;
  if (st.runtime.preset.empty())
    meta.erase("model_preset");
  else
    meta["model_preset"] = st.runtime.preset;
  st.preset_unsaved = false;
  // The archive writer merges into it too: it must carry the choice now.
  st.file_meta = meta;
  session_replace rq{st.key, meta.dump(), dump_all(st.transcript)};
  rq.keep = st.base; // the archived messages dropped from memory
  timed_request(self, st.svc.store, st.cfg.store_timeout, std::move(rq))
    .then(
      [=](caf::ok_atom) {
        if (then)
          guarded(self, then);
      },
      [=](caf::error& err) {
        auto& st = self->state;
        st.preset_unsaved = true;
        auto why = render(self, err);
        st.log->warn("[{}] could not save the model preset: {}", st.key, why);
        if (then)
          fail(self, "could not save the model choice (" + why + ")");
      });
}

namespace {

/// The turn's summed usage and the context size from a usage object.
void read_recorded_usage(const json& u, token_usage& sum,
                         token_usage& context) {
  sum = usage_from(u, "prompt_tokens");
  context = usage_from(u, "context_tokens");
  context.completion_tokens = sum.completion_tokens;
  context.cached_tokens = sum.cached_tokens;
}

} // namespace

bool last_recorded_usage(const std::vector<json>& msgs, token_usage& sum,
                         token_usage& context) {
  for (auto it = msgs.rbegin(); it != msgs.rend(); ++it) {
    auto u = it->find("usage");
    if (role_of(*it) == "assistant" && u != it->end() && u->is_object()) {
      read_recorded_usage(*u, sum, context);
      return true;
    }
  }
  return false;
}

bool last_recorded_usage(const transcript_entries& msgs, token_usage& sum,
                         token_usage& context) {
  // An entry keeps its usage apart (transcript_entry::usage()).
  for (auto it = msgs.rbegin(); it != msgs.rend(); ++it)
    if (auto u = it->usage(); u.is_object()) {
      read_recorded_usage(u, sum, context);
      return true;
    }
  return false;
}

} // namespace nb
