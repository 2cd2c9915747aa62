// The WebUI as a control plane for an agent's automations, skills and memory
// (issue 20, parts 4 and 5): what the page asks the owners of cron/jobs.json
// and of the workspace files, and how it finds them. The owners keep being
// the only writers; the page only asks. Kept out of interfaces.hpp, which
// nearly every file includes: the owners answer through wider views
// (`..._admin_actor`) of the handles everyone else holds.
#pragma once

#include <cstdint>
#include <string>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>

#include "messages/cluster.hpp"
#include "messages/interfaces.hpp"
#include "messages/provider_admin.hpp"
#include "messages/workspace.hpp"

namespace nb {

// -- the workspace files the page reads and edits

/// Reads one file of the agent's workspace: "HEARTBEAT.md",
/// "memory/MEMORY.md", or "prompts/evaluator.md" (the evaluator prompt in
/// effect: the file, or the built-in text when the file is not usable).
struct workspace_read {
  std::string file;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, workspace_read& x) {
  return f(caf::meta::type_name("workspace_read"), x.file);
}

/// A workspace file's text. `version` names the content (a hash of it;
/// "" when the file does not exist): a write based on an older version is
/// refused, so the page never overwrites what the agent wrote meanwhile.
struct workspace_text {
  std::string file;
  std::string text;
  std::string version;
  std::string origin; ///< "file", "missing" or "builtin"
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, workspace_text& x) {
  return f(caf::meta::type_name("workspace_text"), x.file, x.text, x.version,
           x.origin);
}

/// Replaces "HEARTBEAT.md" or "memory/MEMORY.md" atomically when it still
/// holds `base_version` (see workspace_text); answers the new text.
struct workspace_write {
  std::string file;
  std::string text;
  std::string base_version;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, workspace_write& x) {
  return f(caf::meta::type_name("workspace_write"), x.file, x.text,
           x.base_version);
}

/// One skill's SKILL.md as the agent reads it, by skill name.
struct skill_read {
  std::string name;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, skill_read& x) {
  return f(caf::meta::type_name("skill_read"), x.name);
}

/// A page of memory/history.jsonl, newest first: entries with a cursor
/// below `before` (0: from the newest), at most `limit`. Answered as JSON
/// text: {"entries": [{cursor, timestamp, session_key, content}],
/// "total", "skipped", "more"}.
struct history_query {
  int64_t before = 0;
  int32_t limit = 50;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, history_query& x) {
  return f(caf::meta::type_name("history_query"), x.before, x.limit);
}

/// The skills as JSON text: {"skills": [{name, description, source, path,
/// always, available, missing_bins, missing_env}]}.
using skills_report_atom = caf::atom_constant<caf::atom("skillsrep")>;

/// The workspace actor's view for the page.
using workspace_admin_actor = workspace_actor::extend<
  caf::replies_to<workspace_read>::with<workspace_text>,
  caf::replies_to<workspace_write>::with<workspace_text>,
  caf::replies_to<skill_read>::with<workspace_text>,
  caf::replies_to<history_query>::with<std::string>,
  caf::replies_to<skills_report_atom>::with<std::string>>;

// -- cron jobs

/// Every job of the agent's cron/jobs.json as JSON text: {"jobs": [...],
/// "problems": [...]}; each job with its schedule, time zone, next and last
/// run, target chat, last outcome and recent runs.
using cron_jobs_atom = caf::atom_constant<caf::atom("cronjobs")>;

/// A change the page asks of the cron actor: `op` is "add" (job_id empty),
/// "update", "pause", "resume", "remove" or "run" (now); `form_json` holds
/// the fields of add and update as JSON text. Answered as JSON text:
/// {"ok": true, "job": {...}} or {"ok": false, "error": "..."}.
struct cron_edit {
  std::string op;
  std::string job_id;
  std::string form_json;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cron_edit& x) {
  return f(caf::meta::type_name("cron_edit"), x.op, x.job_id, x.form_json);
}

/// The cron actor's view for the page.
using cron_admin_actor = cron_actor::extend<
  caf::replies_to<cron_jobs_atom>::with<std::string>,
  caf::replies_to<cron_edit>::with<std::string>>;

// -- finding the owners

/// Asks the router (registered as agent_files_atom) for an agent's
/// workspace actor; it is spawned now if no session of the agent ran yet.
using workspace_owner_atom = caf::atom_constant<caf::atom("wsowner")>;
/// Asks the schedules owner (registered as schedules_atom) for an agent's
/// cron actor; an error says why there is none (another gateway holds the
/// schedules lease, an unknown agent).
using cron_owner_atom = caf::atom_constant<caf::atom("cronowner")>;

/// Names in CAF's actor registry (the gateway only).
using agent_files_atom = caf::atom_constant<caf::atom("agentfiles")>;
using schedules_atom = caf::atom_constant<caf::atom("schedules")>;

/// The router's view that hands out workspace actors.
using agent_files_actor = caf::typed_actor<
  caf::replies_to<workspace_owner_atom, std::string>::with<
    workspace_admin_actor>>;

/// The member router (the gateway's and the agent nodes') with it.
using member_router_admin_actor = member_router_actor::extend<
  caf::replies_to<workspace_owner_atom, std::string>::with<
    workspace_admin_actor>>;

/// The schedules owner's view that hands out cron actors.
using cron_owners_actor = caf::typed_actor<
  caf::replies_to<cron_owner_atom, std::string>::with<cron_admin_actor>>;

} // namespace nb

CAF_BEGIN_TYPE_ID_BLOCK(nb_control, caf::id_block::nb_admin::end)

  CAF_ADD_TYPE_ID(nb_control, (nb::workspace_read))
  CAF_ADD_TYPE_ID(nb_control, (nb::workspace_text))
  CAF_ADD_TYPE_ID(nb_control, (nb::workspace_write))
  CAF_ADD_TYPE_ID(nb_control, (nb::skill_read))
  CAF_ADD_TYPE_ID(nb_control, (nb::history_query))
  CAF_ADD_TYPE_ID(nb_control, (nb::cron_edit))
  CAF_ADD_TYPE_ID(nb_control, (nb::workspace_admin_actor))
  CAF_ADD_TYPE_ID(nb_control, (nb::cron_admin_actor))

CAF_END_TYPE_ID_BLOCK(nb_control)
