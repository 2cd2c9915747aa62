#include "actors/skills/skills.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

#include "actors/common/file_text.hpp"
#include "actors/skills/agent_plugins.hpp"
#include "actors/skills/front_matter.hpp"
#include "config/atomic_file.hpp"
#include "config/templates.hpp"

namespace nb {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* builtin_dir = ".nanobot/builtin-skills";

bool on_path(const std::string& bin, const std::string& path_env) {
  if (bin.find('/') != std::string::npos)
    return ::access(bin.c_str(), X_OK) == 0;
  std::istringstream dirs{path_env};
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((d + "/" + bin).c_str(), X_OK) == 0)
      return true;
  return false;
}

std::vector<std::string> strings(const json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (auto& x : j)
      if (x.is_string())
        out.push_back(x.get<std::string>());
  return out;
}

/// metadata.nanobot (or the older metadata.openclaw), possibly JSON text.
json nanobot_meta(const json& fields) {
  auto m = fields.value("metadata", json());
  if (m.is_string())
    m = json::parse(m.get<std::string>(), nullptr, false);
  if (!m.is_object())
    return json::object();
  for (auto key : {"nanobot", "openclaw"})
    if (m.contains(key) && m[key].is_object())
      return m[key];
  return m.contains("requires") ? m : json::object();
}

skill_info make_skill(const std::string& dir_name, const std::string& text,
                      const std::string& source, const std::string& path_env) {
  auto fm = parse_front_matter(text);
  skill_info s;
  s.name = dir_name;
  s.source = source;
  s.body = fm.body;
  auto desc = fm.fields.value("description", json());
  s.description = desc.is_string() ? desc.get<std::string>() : dir_name;
  auto meta = nanobot_meta(fm.fields);
  s.always = fm.fields.value("always", json()) == json(true)
             || meta.value("always", json()) == json(true);
  auto req = meta.value("requires", json::object());
  std::vector<std::string> bins, envs;
  for (auto& b : strings(req.value("bins", json())))
    if (!on_path(b, path_env))
      bins.push_back(b);
  for (auto& e : strings(req.value("env", json()))) {
    auto v = std::getenv(e.c_str());
    if (!v || !*v)
      envs.push_back(e);
  }
  auto join = [](const std::vector<std::string>& xs) {
    std::string out;
    for (auto& x : xs)
      out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  if (!bins.empty())
    s.missing = "CLI: " + join(bins);
  if (!envs.empty())
    s.missing += (s.missing.empty() ? "" : ", ") + ("ENV: " + join(envs));
  s.available = s.missing.empty();
  s.missing_bins = std::move(bins);
  s.missing_env = std::move(envs);
  return s;
}

/// name → SKILL.md text of the built-ins.
std::map<std::string, const std::string*> builtin_skills() {
  std::map<std::string, const std::string*> out;
  for (auto& t : workspace_templates()) {
    const std::string prefix = "skills/";
    if (t.path.rfind(prefix, 0) != 0)
      continue;
    auto rest = t.path.substr(prefix.size());
    auto slash = rest.find('/');
    if (slash != std::string::npos && rest.substr(slash) == "/SKILL.md")
      out[rest.substr(0, slash)] = &t.content;
  }
  return out;
}

} // namespace

bool skill_selection::offers(const std::string& name) const {
  auto in = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  return (!only_set || in(only)) && !in(disabled);
}

std::vector<skill_info> list_skills(const std::string& workspace,
                                    const std::string& path_env,
                                    const std::string& plugin_home) {
  std::vector<skill_info> out;
  std::error_code ec;
  std::vector<std::string> names;
  for (auto it = fs::directory_iterator(fs::path{workspace} / "skills", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    if (fs::is_regular_file(it->path() / "SKILL.md", ec))
      names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  for (auto& n : names) {
    try {
      auto text = read_file_text(fs::path{workspace} / "skills" / n / "SKILL.md");
      out.push_back(make_skill(n, text, "workspace", path_env));
    } catch (const std::exception&) {
      // an unreadable skill is simply not offered
    }
  }
  // Enabled Agent Plugins' skills, after the workspace's (which shadow
  // them) and before the built-ins (which they shadow).
  std::error_code ec2;
  auto ws_real = fs::weakly_canonical(fs::absolute(workspace), ec2);
  for (auto& ps : enabled_plugin_skills(workspace, plugin_home)) {
    if (std::binary_search(names.begin(), names.end(), ps.name))
      continue;
    try {
      auto s = make_skill(ps.name, read_file_text(ps.file), "plugin", path_env);
      s.path = fs::path{ps.file}.lexically_relative(ws_real).generic_string();
      out.push_back(std::move(s));
      names.insert(std::upper_bound(names.begin(), names.end(), ps.name),
                   ps.name);
    } catch (const std::exception&) {
      // an unreadable skill is simply not offered
    }
  }
  for (auto& [name, text] : builtin_skills())
    if (!std::binary_search(names.begin(), names.end(), name))
      out.push_back(make_skill(name, *text, "builtin", path_env));
  return out;
}

std::optional<std::string> skill_file_text(const std::string& workspace,
                                           const std::string& name,
                                           const std::string& plugin_home) {
  if (name.empty() || name == "." || name == ".."
      || name.find('/') != std::string::npos
      || name.find('\0') != std::string::npos)
    return std::nullopt;
  try {
    std::error_code ec;
    auto p = fs::path{workspace} / "skills" / name / "SKILL.md";
    if (fs::is_regular_file(p, ec))
      return read_file_text(p);
    for (auto& ps : enabled_plugin_skills(workspace, plugin_home))
      if (ps.name == name)
        return read_file_text(ps.file);
    auto builtins = builtin_skills();
    if (auto it = builtins.find(name); it != builtins.end())
      return *it->second;
  } catch (const std::exception&) {
    // unreadable: as if missing
  }
  return std::nullopt;
}

void materialize_builtin_skills(const std::string& workspace) {
  try {
    for (auto& [name, text] : builtin_skills()) {
      auto ws = fs::path{workspace} / "skills" / name / "SKILL.md";
      std::error_code ec;
      if (fs::exists(ws, ec))
        continue;
      auto p = fs::path{workspace} / builtin_dir / name / "SKILL.md";
      if (fs::exists(p, ec) && read_file_text(p) == *text)
        continue;
      fs::create_directories(p.parent_path(), ec);
      replace_file_atomic(p.string(), *text, 0644);
    }
  } catch (const std::exception&) {
    // best effort: the summary still names the skill
  }
}

std::string skill_read_path(const skill_info& s) {
  if (s.source == "plugin")
    return s.path;
  if (s.source == "builtin")
    return std::string{builtin_dir} + "/" + s.name + "/SKILL.md";
  return "skills/" + s.name + "/SKILL.md";
}

std::string always_skills_section(const std::vector<skill_info>& skills) {
  std::string out;
  for (auto& s : skills) {
    if (!s.always || !s.available)
      continue;
    out += out.empty() ? "# Active Skills\n\n" : "\n\n---\n\n";
    out += "### Skill: " + s.name + "\n\n" + s.body;
  }
  return out;
}

std::string skills_summary(const std::vector<skill_info>& skills) {
  std::string lines;
  for (auto& s : skills) {
    if (s.always && s.available)
      continue;
    lines += "- **" + s.name + "** — " + s.description;
    if (!s.available)
      lines += " (unavailable: " + s.missing + ")";
    lines += "  `" + skill_read_path(s) + "`\n";
  }
  if (lines.empty())
    return {};
  return "# Skills\n\n"
         "Skills are instructions for particular kinds of work. When a task "
         "matches one, read its SKILL.md with read_file (paths are relative "
         "to the workspace) and follow it. A skill marked unavailable needs "
         "the programs or environment variables it names; you may install "
         "or ask for them.\n\n"
         + lines;
}

} // namespace nb
