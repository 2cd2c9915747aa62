// Skills: instructions the agent loads on demand, one folder each with a
// SKILL.md. Workspace skills (<workspace>/skills/<name>/) shadow the
// built-in ones shipped in the binary (workspace/skills/ in the source tree).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nb {

struct skill_info {
  std::string name;
  std::string description;
  std::string source; ///< "workspace", "plugin" or "builtin"
  /// Where the agent reads it with read_file, relative to the workspace:
  /// "skills/<name>/SKILL.md"; an enabled Agent Plugin's
  /// "plugins/<dir>/skills/<name>/SKILL.md"; built-ins are written to
  /// <workspace>/.nanobot/builtin-skills/ by materialize_builtin_skills.
  std::string path;
  std::string body; ///< SKILL.md without its front matter
  bool always = false;
  bool available = true;
  std::string missing; ///< "CLI: gh, ENV: GITHUB_TOKEN" when unavailable
  std::vector<std::string> missing_bins; ///< required programs not on PATH
  std::vector<std::string> missing_env;  ///< required variables unset
};

/// Which skills an agent is offered: those named in agents.list[].skills
/// when that list is given, never those in agents.defaults.disabledSkills.
struct skill_selection {
  bool only_set = false;
  std::vector<std::string> only;
  std::vector<std::string> disabled;
  /// The config directory whose plugin-data/ records the enabled Agent
  /// Plugins, whose skills are then offered too ("" = none).
  std::string plugin_home{};
  bool offers(const std::string& name) const;
};

/// Every skill: workspace ones first, then those of the Agent Plugins
/// enabled under `plugin_home` (the config dir; "" = none), then built-ins,
/// each group sorted by name and a name taken only once. `path_env` is the
/// PATH searched for required programs. Never throws; unreadable skills
/// are left out.
std::vector<skill_info> list_skills(const std::string& workspace,
                                    const std::string& path_env,
                                    const std::string& plugin_home = {});

/// The SKILL.md text (front matter included) of the skill `name` as
/// list_skills finds it: the workspace's, an enabled plugin's, else the
/// built-in one; nullopt when there is none (or `name` is not a plain
/// folder name). Never throws.
std::optional<std::string> skill_file_text(const std::string& workspace,
                                           const std::string& name,
                                           const std::string& plugin_home = {});

/// Writes the built-in skills that the workspace does not shadow under
/// <workspace>/.nanobot/builtin-skills/<name>/SKILL.md (only when the file
/// is missing or differs), so read_file can open them. Never throws.
void materialize_builtin_skills(const std::string& workspace);

/// "skills/<name>/SKILL.md" for workspace skills and
/// ".nanobot/builtin-skills/<name>/SKILL.md" for built-ins.
std::string skill_read_path(const skill_info& s);

/// The "# Active Skills" section: every available always-on skill whole
/// ("" when none).
std::string always_skills_section(const std::vector<skill_info>& skills);

/// The skills summary: one line per skill that is not always-on, with its
/// path and what it lacks when unavailable ("" when there are none).
std::string skills_summary(const std::vector<skill_info>& skills);

} // namespace nb
