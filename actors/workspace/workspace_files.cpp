#include "actors/workspace/workspace_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "actors/evaluator/evaluator_prompt.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/memory/memory_lock.hpp"
#include "actors/skills/skills.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* heartbeat_file = "HEARTBEAT.md";
constexpr const char* memory_file = "memory/MEMORY.md";

bool editable(const std::string& file) {
  return file == heartbeat_file || file == memory_file;
}

/// The file's text, "" with origin "missing" when there is none.
std::variant<workspace_text, std::string>
read_plain(const std::string& workspace, const std::string& file) {
  auto path = fs::path{workspace} / file;
  workspace_text out{file, "", "", "missing"};
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || st.type() == fs::file_type::not_found)
    return out;
  if (st.type() != fs::file_type::regular)
    return file + " is not a regular file";
  auto size = fs::file_size(path, ec);
  if (!ec && size > editable_file_max_bytes)
    return file + " is " + std::to_string(size)
           + " bytes, more than the page edits ("
           + std::to_string(editable_file_max_bytes) + ")";
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return "cannot read " + file + ": " + std::strerror(errno);
  std::ostringstream buf;
  buf << in.rdbuf();
  out.text = buf.str();
  out.version = content_version(out.text);
  out.origin = "file";
  return out;
}

json strings(const std::vector<std::string>& xs) {
  json out = json::array();
  for (auto& x : xs)
    out.push_back(x);
  return out;
}

} // namespace

std::string content_version(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::variant<workspace_text, std::string>
read_workspace_file(const std::string& workspace, const std::string& file) {
  if (file == evaluator_prompt_rel_path) {
    auto choice = resolve_evaluator_prompt(workspace);
    return workspace_text{file, choice.text, content_version(choice.text),
                          choice.custom ? "file" : "builtin"};
  }
  if (!editable(file))
    return "\"" + file + "\" is not a file the page may read (HEARTBEAT.md, "
           "memory/MEMORY.md or prompts/evaluator.md)";
  return read_plain(workspace, file);
}

std::variant<workspace_text, std::string>
write_workspace_file(const std::string& workspace, const workspace_write& rq) {
  if (!editable(rq.file))
    return "\"" + rq.file + "\" is not a file the page may change "
           "(HEARTBEAT.md or memory/MEMORY.md)";
  if (rq.text.size() > editable_file_max_bytes)
    return rq.file + ": the text is larger than "
           + std::to_string(editable_file_max_bytes) + " bytes";
  if (rq.text.find('\0') != std::string::npos)
    return rq.file + ": the text holds a NUL byte";
  // MEMORY.md has other writers (consolidation, Dream, a second process):
  // they all take this lock, so the check and the write are one step.
  memory_lock lock{workspace};
  auto now = read_plain(workspace, rq.file);
  if (auto* err = std::get_if<std::string>(&now))
    return *err;
  auto& current = std::get<workspace_text>(now);
  if (current.version != rq.base_version)
    return rq.file + " changed since it was loaded (the agent or another "
           "editor wrote it); reload it and make the change again";
  auto path = workspace + "/" + rq.file;
  std::error_code ec;
  fs::create_directories(fs::path{path}.parent_path(), ec);
  auto w = replace_file_atomic(path, rq.text, 0644);
  if (w.outcome == write_outcome::failed)
    return w.error;
  return workspace_text{rq.file, rq.text, content_version(rq.text), "file"};
}

std::string skills_report_json(const std::string& workspace,
                               const std::string& path_env,
                               const skill_selection& skills) {
  json rows = json::array();
  for (auto s : list_skills(workspace, path_env, skills.plugin_home)) {
    if (skills.only_set
        && std::find(skills.only.begin(), skills.only.end(), s.name)
             == skills.only.end())
      continue;
    if (!skills.offers(s.name)) {
      s.available = false;
      s.missing = "disabled by agents.defaults.disabledSkills";
    }
    rows.push_back({{"name", s.name},
                    {"description", s.description},
                    {"source", s.source},
                    {"path", skill_read_path(s)},
                    {"always", s.always},
                    {"available", s.available},
                    {"missing", s.missing},
                    {"missing_bins", strings(s.missing_bins)},
                    {"missing_env", strings(s.missing_env)}});
  }
  return json{{"skills", rows}}.dump(-1, ' ', false,
                                     json::error_handler_t::replace);
}

std::string history_page_json(const std::string& workspace,
                              const history_query& q) {
  int skipped = 0;
  auto all = read_history(workspace, &skipped);
  auto limit = std::clamp<int32_t>(q.limit, 1, 500);
  json rows = json::array();
  bool more = false;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    if (q.before > 0 && it->cursor >= q.before)
      continue;
    if (static_cast<int32_t>(rows.size()) == limit) {
      more = true;
      break;
    }
    rows.push_back({{"cursor", it->cursor},
                    {"timestamp", it->timestamp},
                    {"session_key", it->session_key},
                    {"content", it->content}});
  }
  return json{{"entries", rows},
              {"total", all.size()},
              {"skipped", skipped},
              {"more", more}}
    .dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace nb
