#include "actors/session/prompt.hpp"
#include "actors/common/strings.hpp"
#include "actors/skills/agent_plugins.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <sys/stat.h>
#include <sys/utsname.h>

#include "actors/memory/history_file.hpp"
#include "actors/memory/history_tail.hpp"
#include "actors/session/prompt_texts.hpp"
#include "actors/skills/skills.hpp"
#include "config/templates.hpp"

namespace nb {

namespace {

/// How many of history.jsonl's newest entries a prompt's "Recent History"
/// is chosen from (its session's last 50 among them): the original keeps
/// 1 000 entries in the file.
constexpr size_t recent_history_scan = 1000;

std::string read_small_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  auto text = ss.str();
  constexpr size_t cap = 32000; // a runaway file must not eat the context
  if (text.size() > cap)
    text = text.substr(0, cap) + "\n... (truncated)";
  return text;
}

/// The file's text, or "" when it is empty or still the shipped template
/// (an un-customised file says nothing about this user).
std::string customised(const std::string& ws, const std::string& rel) {
  auto text = trim_space(read_small_file(ws + "/" + rel));
  if (text.empty())
    return {};
  for (auto& t : workspace_templates())
    if (t.path == rel && trim_space(t.content) == text)
      return {};
  return text;
}

std::string identity(const prompt_inputs& in) {
  utsname un{};
  uname(&un);
  std::string runtime = std::string{un.sysname} + " " + un.machine
                        + ", nanobot-cpp " NB_VERSION;
  return texts::identity(runtime, in.workspace, format_hint(in.channel));
}

void stamp_file(std::string& out, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    out += std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec)
           + "." + std::to_string(st.st_mtim.tv_nsec);
  out += ';';
}

// Agent Plugins: each package's manifest and skills, and the enabled
// markers of this workspace (enabling one changes the prompt), which live
// in `state` (plugin_state_dir).
void stamp_plugins(std::string& stamp, const std::string& workspace,
                   const std::string& state) {
  namespace fs = std::filesystem;
  std::error_code ec;
  stamp_file(stamp, workspace + "/plugins");
  for (auto it = fs::directory_iterator(workspace + "/plugins", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    auto dir = it->path().string();
    stamp_file(stamp, dir + "/plugin.json");
    stamp_file(stamp, dir + "/skills");
    std::error_code ec2;
    for (auto sk = fs::directory_iterator(dir + "/skills", ec2);
         !ec2 && sk != fs::directory_iterator(); sk.increment(ec2))
      stamp_file(stamp, sk->path().string() + "/SKILL.md");
  }
  for (auto it = fs::directory_iterator(state, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    stamp_file(stamp, it->path().string() + "/enabled");
}

} // namespace

workspace_parts read_workspace_parts(const std::string& workspace,
                                     const std::string& path_env,
                                     const skill_selection& skills) {
  workspace_parts out;
  for (auto name : bootstrap_files) {
    auto text = customised(workspace, name);
    ++out.files_read;
    if (!text.empty())
      out.bootstrap += (out.bootstrap.empty() ? "" : "\n\n")
                       + ("## " + std::string{name}) + "\n\n" + text;
  }
  out.memory = customised(workspace, "memory/MEMORY.md");
  ++out.files_read;
  auto all = list_skills(workspace, path_env, skills.plugin_home);
  // Built-in skills come from the binary; the others are files.
  out.files_read += std::count_if(all.begin(), all.end(), [](const auto& s) {
    return s.source != "builtin";
  });
  std::erase_if(all,
                [&](const skill_info& s) { return !skills.offers(s.name); });
  out.always_skills = always_skills_section(all);
  out.skills_summary = skills_summary(all);
  // history.jsonl only grows; the workspace actor caches these parts for
  // as long as the gateway runs, so only the file's tail is kept.
  out.history = read_history_tail(workspace, recent_history_scan);
  ++out.files_read;
  out.skills = std::move(all);
  return out;
}

std::string assemble_system_prompt(const workspace_parts& parts,
                                   const prompt_inputs& in) {
  std::vector<std::string> sections;
  sections.push_back(identity(in));
  if (!parts.bootstrap.empty())
    sections.push_back(parts.bootstrap);
  sections.push_back(texts::tool_contract);
  if (!parts.memory.empty())
    sections.push_back("# Memory\n\n## Long-term Memory\n\n" + parts.memory);
  if (!parts.always_skills.empty())
    sections.push_back(parts.always_skills);
  if (!parts.skills_summary.empty())
    sections.push_back(parts.skills_summary);
  auto recent = recent_history_section(parts.history, in.session_key, 50,
                                       32000, in.summary);
  if (!recent.empty())
    sections.push_back(std::move(recent));
  if (!in.summary.empty())
    sections.push_back("[Archived Context Summary]\n\nPrevious conversation "
                       "summary (last active " + in.summary_at + "):\n"
                       + in.summary);
  std::string out;
  for (auto& s : sections)
    out += (out.empty() ? "" : section_separator) + s;
  return out;
}

std::string build_system_prompt(const prompt_inputs& in) {
  return assemble_system_prompt(read_workspace_parts(in.workspace,
                                                     in.path_env),
                                in);
}

std::string plugin_state_dir(const std::string& workspace,
                             const std::string& plugin_home) {
  if (plugin_home.empty())
    return {};
  return std::filesystem::path{agent_plugin_data_dir(workspace, plugin_home,
                                                     "x")}
    .parent_path()
    .string();
}

std::string workspace_stamp(const std::string& workspace,
                            const std::string& plugin_state) {
  std::string stamp;
  for (auto name : bootstrap_files)
    stamp_file(stamp, workspace + "/" + name);
  stamp_file(stamp, workspace + "/memory/MEMORY.md");
  stamp_file(stamp, workspace + "/memory/history.jsonl");
  // Skills: the folder (added or removed skills) and every SKILL.md.
  stamp_file(stamp, workspace + "/skills");
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(workspace + "/skills", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    stamp_file(stamp, it->path().string() + "/SKILL.md");
  if (!plugin_state.empty())
    stamp_plugins(stamp, workspace, plugin_state);
  return stamp;
}

const std::string& system_prompt_cache::get(const prompt_inputs& in) {
  std::string stamp = in.workspace + '\n' + in.channel + '\n' + in.session_key
                      + '\n' + in.summary + '\n' + in.summary_at + '\n'
                      + in.path_env + '\n' + workspace_stamp(in.workspace);
  if (stamp != stamp_ || text_.empty()) {
    text_ = build_system_prompt(in);
    stamp_ = std::move(stamp);
  }
  return text_;
}

namespace {

/// "2026-11-29 21:50 (Sunday) Europe/Berlin, UTC+01:00".
std::string zoned_time(std::time_t now, const cron::time_zone& zone) {
  auto offset = zone.offset_at(now);
  std::time_t local = now + offset;
  std::tm tm{};
  gmtime_r(&local, &tm);
  char when[48];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M (%A) ", &tm);
  auto minutes = std::abs(offset) / 60;
  char utc[16];
  std::snprintf(utc, sizeof utc, "UTC%c%02d:%02d", offset < 0 ? '-' : '+',
                static_cast<int>(minutes / 60), static_cast<int>(minutes % 60));
  return when + zone.name() + ", " + utc;
}

} // namespace

std::string runtime_context(const std::string& channel,
                            const std::string& chat_id,
                            const std::string& sender_id,
                            const cron::time_zone* zone) {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::string when;
  if (zone) {
    when = zoned_time(now, *zone);
  } else {
    std::tm tm{};
    localtime_r(&now, &tm);
    char text[64];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M (%A) %Z, UTC%z", &tm);
    when = text;
  }
  std::string out = "\n\n[Runtime Context — metadata only, not instructions]\n"
                    "Current Time: ";
  out += when;
  out += "\nChannel: " + channel + "\nChat ID: " + chat_id;
  if (!sender_id.empty())
    out += "\nSender ID: " + sender_id;
  out += "\n[/Runtime Context]";
  return out;
}

} // namespace nb
