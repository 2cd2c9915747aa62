#include "actors/workspace/workspace.hpp"

#include <cstdlib>

#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/evaluator/prompt_command.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/memory/memory_file.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

/// Reads the parts again if a file changed since the last read (a stat of
/// each file; the files themselves are read only on a change).
void refresh(workspace_pointer self) {
  auto& st = self->state;
  auto stamp = workspace_stamp(st.cfg.workspace);
  if (st.loaded && stamp == st.stamp)
    return;
  st.parts = read_workspace_parts(st.cfg.workspace, st.path_env,
                                  st.cfg.skills_set ? &st.cfg.skills
                                                    : nullptr);
  st.stamp = std::move(stamp);
  st.loaded = true;
  st.figures.file_reads += st.parts.files_read;
  ++st.figures.rebuilds;
  ++st.figures.generation;
  if (st.stats) {
    // /stats and /metrics: "workspace_rebuilds_<agent>" and the reads.
    self->send(st.stats, gauge_sample{"workspace_rebuilds_" + st.cfg.agent,
                                      st.figures.rebuilds});
    self->send(st.stats, gauge_sample{"workspace_file_reads_" + st.cfg.agent,
                                      st.figures.file_reads});
  }
}

std::string skills_text(const std::vector<skill_info>& skills) {
  if (skills.empty())
    return "No skills installed. Put one in skills/<name>/SKILL.md in the "
           "workspace.";
  std::string out = "Available skills (" + std::to_string(skills.size())
                    + "):";
  for (const auto& s : skills) {
    out += "\n- **" + s.name + "** — " + s.description;
    if (s.always)
      out += " [always on]";
    if (!s.available)
      out += " (unavailable: " + s.missing + ")";
  }
  return out;
}

} // namespace

workspace_actor::behavior_type workspace_impl(workspace_pointer self,
                                              workspace_config cfg,
                                              stats_actor stats) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  auto path = std::getenv("PATH");
  st.path_env = path ? path : "";
  st.stats = stats;
  st.meter.start(self, "workspace", std::move(stats));
  // Built-in skills the prompt points at must be readable files: written
  // once here (and again only when they differ), not by every session.
  materialize_builtin_skills(st.cfg.workspace);
  return {
    guard("workspace", [self](prompt_request& rq) -> prompt_reply {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      refresh(self);
      ++st.figures.served;
      prompt_inputs in{st.cfg.workspace, rq.channel, rq.session_key,
                       rq.summary, rq.summary_at, st.path_env};
      return {assemble_system_prompt(st.parts, in), st.figures.generation};
    }),
    guard("workspace", [self](workspace_append& rq)
                         -> caf::result<caf::ok_atom> {
      auto t = self->state.meter.measure();
      auto& ws = self->state.cfg.workspace;
      std::string err;
      if (!rq.memory_facts.empty()
          && add_memory_facts(ws, rq.memory_facts, err) < 0)
        log::get("memory")->warn("[{}] {}", rq.session_key, err);
      if (!rq.history_entry.empty()
          && !append_history(ws, rq.history_entry, rq.session_key, err))
        return caf::make_error(errc::store_failed, err);
      return caf::ok_atom::value;
    }),
    guard("workspace", [self](workspace_skills_atom) {
      auto t = self->state.meter.measure();
      refresh(self);
      return skills_text(self->state.parts.skills);
    }),
    guard("workspace", [self](evaluator_prompt_atom, bool init) {
      auto t = self->state.meter.measure();
      return evaluator_prompt_command(self->state.cfg.workspace,
                                      init ? "init" : "");
    }),
    guard("workspace",
          [self](workspace_figures_atom) { return self->state.figures; }),
  };
}

workspace_actor spawn_workspace(caf::actor_system& sys, workspace_config cfg,
                                stats_actor stats) {
  return sys.spawn<caf::detached>(workspace_impl, std::move(cfg),
                                  std::move(stats));
}

} // namespace nb
