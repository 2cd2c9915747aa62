// What the WebUI reads and edits in an agent's workspace (issue 20, parts
// 4 and 5): HEARTBEAT.md, memory/MEMORY.md, the evaluator prompt in effect,
// the skills with what they lack, SKILL.md files and pages of
// memory/history.jsonl. Blocking file I/O: the workspace actor calls these
// on its own thread, the only writer the page goes through.
#pragma once

#include <string>
#include <variant>

#include "actors/skills/skills.hpp"
#include "messages/control.hpp"

namespace nb {

/// A name for `text` (FNV-1a, 16 hex digits); the version of a file.
std::string content_version(const std::string& text);

/// Longest file the page edits; a larger one is refused with the reason.
inline constexpr size_t editable_file_max_bytes = 1u << 20;

/// The file the page asked for, or an error naming what is wrong.
std::variant<workspace_text, std::string>
read_workspace_file(const std::string& workspace, const std::string& file);

/// Replaces HEARTBEAT.md or memory/MEMORY.md (under the memory/ lock every
/// writer of memory/ takes) atomically, when it still has the version the
/// edit started from; the answer is the file as written, or the error.
std::variant<workspace_text, std::string>
write_workspace_file(const std::string& workspace, const workspace_write& rq);

/// skills_report_atom's answer for the skills `list_skills` finds with
/// `path_env`: those outside agents.list[].skills left out, disabled ones
/// shown as unavailable with the reason.
std::string skills_report_json(const std::string& workspace,
                               const std::string& path_env,
                               const skill_selection& skills);

/// history_query's answer.
std::string history_page_json(const std::string& workspace,
                              const history_query& q);

} // namespace nb
