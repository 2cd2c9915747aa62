#include "actors/workspace/workspace.hpp"

#include <cstdlib>

#include "actors/common/guard.hpp"
#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/evaluator/prompt_command.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/memory/memory_file.hpp"
#include "actors/workspace/workspace_files.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

/// Reads the parts again if a file changed since the last read (a stat of
/// each file; the files themselves are read only on a change).
void refresh(workspace_pointer self) {
  auto& st = self->state;
  auto stamp = workspace_stamp(st.cfg.workspace, st.plugin_state);
  if (st.loaded && stamp == st.stamp)
    return;
  st.parts = read_workspace_parts(st.cfg.workspace, st.path_env, st.cfg.skills);
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

/// A file or the reason there is none, as a reply.
caf::result<workspace_text>
answer(std::variant<workspace_text, std::string> got) {
  if (auto* err = std::get_if<std::string>(&got))
    return caf::make_error(caf::sec::runtime_error, std::move(*err));
  return std::move(std::get<workspace_text>(got));
}

} // namespace

workspace_admin_actor::behavior_type workspace_impl(workspace_pointer self,
                                                    workspace_config cfg,
                                                    stats_actor stats) {
  name_thread("nb.workspace");
  auto& st = self->state;
  st.cfg = std::move(cfg);
  auto path = std::getenv("PATH");
  st.path_env = path ? path : "";
  st.plugin_state = plugin_state_dir(st.cfg.workspace, st.cfg.skills.plugin_home);
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
      auto text = assemble_system_prompt(st.parts, in);
      auto made = st.system_messages.get(text);
      return {std::move(text), st.figures.generation, std::move(made)};
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
    // -- the WebUI's questions and edits
    guard("workspace", [self](workspace_read& rq)
                         -> caf::result<workspace_text> {
      auto t = self->state.meter.measure();
      return answer(read_workspace_file(self->state.cfg.workspace, rq.file));
    }),
    guard("workspace", [self](workspace_write& rq)
                         -> caf::result<workspace_text> {
      auto t = self->state.meter.measure();
      auto out = write_workspace_file(self->state.cfg.workspace, rq);
      if (std::holds_alternative<workspace_text>(out))
        log::get("workspace")->info("[{}] {} saved from the WebUI",
                                    self->state.cfg.agent, rq.file);
      return answer(std::move(out));
    }),
    guard("workspace", [self](skill_read& rq) -> caf::result<workspace_text> {
      auto t = self->state.meter.measure();
      auto text = skill_file_text(self->state.cfg.workspace, rq.name,
                                  self->state.cfg.skills.plugin_home);
      if (!text)
        return caf::make_error(caf::sec::runtime_error,
                               "no skill named \"" + rq.name + "\"");
      auto version = content_version(*text);
      return workspace_text{"skills/" + rq.name + "/SKILL.md",
                            std::move(*text), std::move(version), "file"};
    }),
    guard("workspace", [self](history_query& q) {
      auto t = self->state.meter.measure();
      return history_page_json(self->state.cfg.workspace, q);
    }),
    guard("workspace", [self](skills_report_atom) {
      auto t = self->state.meter.measure();
      auto& st = self->state;
      return skills_report_json(st.cfg.workspace, st.path_env, st.cfg.skills);
    }),
  };
}

workspace_admin_actor spawn_workspace(caf::actor_system& sys,
                                      workspace_config cfg,
                                      stats_actor stats) {
  return sys.spawn<caf::detached>(workspace_impl, std::move(cfg),
                                  std::move(stats));
}

} // namespace nb
