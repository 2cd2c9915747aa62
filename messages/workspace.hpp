// One agent's workspace files behind one actor: the cached system prompt
// every session of the agent is served from, the skills list, the
// evaluator prompt, and appends to memory/history.jsonl and MEMORY.md. The
// actor does all of its file I/O in its own detached worker.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace nb {

class model_message; // actors/runner/model_message.hpp

/// What one session's system prompt depends on besides the files.
struct prompt_request {
  std::string session_key; ///< picks the recent history entries
  std::string channel;     ///< picks the format hint
  std::string summary;     ///< archived summary of older turns ("" = none)
  std::string summary_at;  ///< when the summarised conversation was active
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, prompt_request& x) {
  return f(caf::meta::type_name("prompt_request"), x.session_key, x.channel,
           x.summary, x.summary_at);
}

/// The system prompt, and the generation of the workspace files it was
/// made from (bumped each time a change is read in).
struct prompt_reply {
  std::string text;
  int64_t generation = 0;
  /// The prompt as the model is given it, made once and shared by every
  /// session of the agent whose prompt is the same text (so thousands of
  /// chats hold one copy, not one each). Not sent across a process
  /// boundary: there it is null and the session makes its own from text.
  std::shared_ptr<const model_message> made;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, prompt_reply& x) {
  return f(caf::meta::type_name("prompt_reply"), x.text, x.generation);
}

/// Archived turns going into the workspace: a history entry and the
/// permanent facts for MEMORY.md (both optional).
struct workspace_append {
  std::string session_key;
  std::string history_entry;            ///< "" = none
  std::vector<std::string> memory_facts; ///< added to MEMORY.md once each
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, workspace_append& x) {
  return f(caf::meta::type_name("workspace_append"), x.session_key,
           x.history_entry, x.memory_facts);
}

/// What a workspace actor did so far (tests, the benchmark, /stats).
struct workspace_figures {
  int64_t file_reads = 0; ///< workspace files read (whole-file reads)
  int64_t rebuilds = 0;   ///< times the cached prompt parts were rebuilt
  int64_t served = 0;     ///< prompt requests answered
  int64_t generation = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, workspace_figures& x) {
  return f(caf::meta::type_name("workspace_figures"), x.file_reads,
           x.rebuilds, x.served, x.generation);
}

/// The /skill text.
using workspace_skills_atom = caf::atom_constant<caf::atom("wsskills")>;
/// /evaluator-prompt (true: "init", write an editable copy).
using evaluator_prompt_atom = caf::atom_constant<caf::atom("evalprompt")>;
using workspace_figures_atom = caf::atom_constant<caf::atom("wsfigures")>;

using workspace_actor = caf::typed_actor<
  caf::replies_to<prompt_request>::with<prompt_reply>,
  caf::replies_to<workspace_append>::with<caf::ok_atom>,
  caf::replies_to<workspace_skills_atom>::with<std::string>,
  caf::replies_to<evaluator_prompt_atom, bool>::with<std::string>,
  caf::replies_to<workspace_figures_atom>::with<workspace_figures>>;

} // namespace nb
