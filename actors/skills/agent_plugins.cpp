#include "actors/skills/agent_plugins.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include "actors/common/file_text.hpp"
#include "actors/common/log.hpp"
#include "actors/skills/agent_plugin_parts.hpp"
#include "actors/skills/front_matter.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace plugin_parts {

namespace fs = std::filesystem;
using nlohmann::json;

// The original's identity rules (Agent Plugins v1, Agent Skills).
const std::regex& plugin_name_rule() {
  static const std::regex r{
    "^(?!.*(?:--|\\.\\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$"};
  return r;
}

const std::regex& plugin_skill_name_rule() {
  static const std::regex r{"^(?!.*--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$"};
  return r;
}

bool path_is_within(const fs::path& p, const fs::path& root) {
  auto a = p.generic_string(), b = root.generic_string();
  return a == b
         || (a.size() > b.size() && a.compare(0, b.size(), b) == 0
             && (b.back() == '/' || a[b.size()] == '/'));
}

// `path` resolved (it must exist, as a folder or a regular file) and inside
// `root` after every link is followed; nullopt otherwise.
std::optional<fs::path> contained(const fs::path& path, const fs::path& root,
                                  bool directory) {
  std::error_code ec;
  auto real = fs::canonical(path, ec);
  if (ec)
    return std::nullopt;
  bool kind =
    directory ? fs::is_directory(real, ec) : fs::is_regular_file(real, ec);
  if (!kind || !path_is_within(real, root))
    return std::nullopt;
  return real;
}

json read_plugin_object(const fs::path& path, const fs::path& root) {
  auto file = contained(path, root, false);
  if (!file)
    return nullptr;
  auto j = json::parse(read_file_text(*file), nullptr, false);
  if (!j.is_object()) {
    log::get("skills")->warn("Ignoring invalid Agent Plugin component '{}'",
                             file->string());
    return nullptr;
  }
  return j;
}

std::vector<fs::path> sorted_children(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    out.push_back(it->path());
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) {
    return a.filename().string() < b.filename().string();
  });
  return out;
}

std::string json_text(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string())
    return {};
  auto s = j[key].get<std::string>();
  auto b = s.find_first_not_of(" \t\r\n");
  auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
}

std::string sha256_hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 0xf];
  }
  return out;
}

// The original's package fingerprint: every path below the root in path
// order (component by component), its kind and its content or link target.
std::optional<std::string> package_fingerprint(const fs::path& root) {
  std::vector<std::vector<std::string>> rels;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(root, ec);
  if (ec)
    return std::nullopt;
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec)
      return std::nullopt;
    std::vector<std::string> parts;
    for (auto& part : it->path().lexically_relative(root))
      parts.push_back(part.string());
    rels.push_back(std::move(parts));
  }
  std::sort(rels.begin(), rels.end());
  std::string feed;
  for (auto& parts : rels) {
    fs::path p = root;
    std::string rel;
    for (auto& part : parts) {
      p /= part;
      rel += (rel.empty() ? "" : "/") + part;
    }
    feed += rel;
    auto st = fs::symlink_status(p, ec);
    if (ec)
      return std::nullopt;
    if (fs::is_symlink(st)) {
      feed += std::string{"\0link\0", 6} + fs::read_symlink(p, ec).string();
    } else if (fs::is_regular_file(st)) {
      feed += std::string{"\0file\0", 6} + read_file_text(p);
    } else if (fs::is_directory(st)) {
      feed += std::string{"\0dir\0", 5};
    } else {
      return std::nullopt;
    }
    feed += '\0';
  }
  return sha256_hex(feed);
}

// {"fingerprint": ..., "root": ...} as Python's json.dumps writes it
// (sorted keys, no spaces, non-ASCII escaped).
std::optional<std::string> activation_marker(const agent_plugin& p) {
  auto fp = package_fingerprint(p.root);
  if (!fp)
    return std::nullopt;
  json j = {{"fingerprint", *fp}, {"root", p.root}};
  return j.dump(-1, ' ', true);
}

fs::path real_or_absolute(const std::string& p) {
  std::error_code ec;
  auto r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p) : r;
}

bool ensure_private_dir(const fs::path& p) {
  std::error_code ec;
  fs::create_directories(p, ec);
  if (!fs::is_directory(p, ec))
    return false;
  ::chmod(p.c_str(), 0700);
  return true;
}

std::vector<std::string> plugin_skill_names(const agent_plugin& p,
                                            std::vector<std::string>* files) {
  std::vector<std::string> names;
  fs::path root = p.root;
  auto skills = contained(root / "skills", root, true);
  if (!skills)
    return names;
  for (auto& candidate : sorted_children(*skills)) {
    auto dir = contained(candidate, *skills, true);
    if (!dir)
      continue;
    auto file = contained(*dir / "SKILL.md", root, false);
    if (!file)
      continue;
    auto name = candidate.filename().string();
    auto fm = parse_front_matter(read_file_text(*file));
    auto desc = json_text(fm.fields, "description");
    bool valid = fm.present && fm.error.empty()
                 && fm.fields.value("name", json()) == json(name)
                 && name.size() <= 64
                 && std::regex_match(name, plugin_skill_name_rule())
                 && fm.fields.value("description", json()).is_string()
                 && !desc.empty() && desc.size() <= 1024;
    if (!valid) {
      log::get("skills")->warn("Ignoring Agent Plugin '{}' skill '{}': "
                               "invalid metadata",
                               p.name, name);
      continue;
    }
    names.push_back(name);
    if (files)
      files->push_back(file->string());
  }
  return names;
}

std::vector<agent_plugin> installed_plugins(const std::string& workspace) {
  std::vector<agent_plugin> out;
  auto ws = real_or_absolute(workspace);
  auto root = contained(ws / "plugins", ws, true);
  if (!root)
    return out;
  std::map<std::string, int> seen;
  for (auto& candidate : sorted_children(*root)) {
    auto dir = contained(candidate, *root, true);
    if (!dir)
      continue;
    auto m = read_plugin_object(*dir / "plugin.json", *dir);
    if (!m.is_object()
        || m.value("$schema", json()) != json(agent_plugin_schema))
      continue;
    auto name = m.value("name", json());
    if (!name.is_string() || name.get<std::string>().size() > 64
        || !std::regex_match(name.get<std::string>(), plugin_name_rule())) {
      log::get("skills")->warn("Ignoring Agent Plugin manifest in '{}': "
                               "invalid name",
                               dir->string());
      continue;
    }
    agent_plugin p;
    p.name = name.get<std::string>();
    p.root = dir->string();
    p.description = json_text(m, "description");
    json ext = m.contains("extensions") && m["extensions"].is_object()
                 ? m["extensions"].value("dev.nanobot", json::object())
                 : json::object();
    p.display_name = json_text(ext, "displayName");
    if (p.display_name.empty())
      p.display_name = p.name;
    p.category = json_text(ext, "category");
    if (p.category.empty())
      p.category = "Plugin";
    if (ext.is_object() && ext.contains("permissions")
        && ext["permissions"].is_array())
      for (auto& x : ext["permissions"])
        if (x.is_string() && !x.get<std::string>().empty())
          p.permissions.push_back(x.get<std::string>());
    if (++seen[p.name] > 1)
      log::get("skills")->warn("Ignoring duplicate Agent Plugin identity '{}'",
                               p.name);
    out.push_back(std::move(p));
  }
  std::erase_if(out, [&](const agent_plugin& p) { return seen[p.name] > 1; });
  return out;
}

// Whether this exact package is enabled; a stale or foreign marker is
// removed, one holding only the root (an older form) is upgraded.
bool plugin_enabled(const std::string& workspace, const std::string& config_dir,
                    const agent_plugin& p) {
  if (config_dir.empty())
    return false;
  fs::path marker =
    agent_plugin_data_dir(workspace, config_dir, p.name) + "/enabled";
  std::error_code ec;
  if (!fs::is_regular_file(marker, ec))
    return false;
  auto current = read_file_text(marker);
  auto activation = activation_marker(p);
  if (activation && current == *activation)
    return true;
  if (activation && current == p.root) {
    replace_file_atomic(marker.string(), *activation, 0600,
                        existing_mode::replace);
    return true;
  }
  fs::remove(marker, ec);
  return false;
}

} // namespace plugin_parts

using namespace plugin_parts;

std::string agent_plugin_data_dir(const std::string& workspace,
                                  const std::string& config_dir,
                                  const std::string& name) {
  auto key = sha256_hex(real_or_absolute(workspace).string()).substr(0, 12);
  return (real_or_absolute(config_dir) / "plugin-data" / key / name).string();
}

std::vector<agent_plugin>
discover_agent_plugins(const std::string& workspace,
                       const std::string& config_dir) {
  auto plugins = installed_plugins(workspace);
  for (auto& p : plugins) {
    p.skills = plugin_skill_names(p, nullptr);
    for (auto& [name, s] : plugin_servers(workspace, config_dir, p))
      p.mcp_servers.push_back(name);
    p.enabled = plugin_enabled(workspace, config_dir, p);
  }
  return plugins;
}

std::string set_agent_plugin_enabled(const std::string& workspace,
                                     const std::string& config_dir,
                                     const std::string& name, bool enabled) {
  auto plugins = installed_plugins(workspace);
  auto p = std::find_if(plugins.begin(), plugins.end(),
                        [&](auto& x) { return x.name == name; });
  if (p == plugins.end())
    return "unknown Agent Plugin '" + name + "'";
  fs::path data = agent_plugin_data_dir(workspace, config_dir, name);
  fs::path marker = data / "enabled";
  if (!enabled) {
    std::error_code ec;
    fs::remove(marker, ec);
    return {};
  }
  fs::path dir = real_or_absolute(config_dir);
  for (auto& seg : {fs::path{"plugin-data"}, data.parent_path().filename(),
                    fs::path{name}}) {
    dir /= seg;
    if (!ensure_private_dir(dir))
      return "cannot create " + dir.string();
  }
  auto activation = activation_marker(*p);
  if (!activation)
    return "Agent Plugin '" + name + "' changed while it was being enabled";
  auto w = replace_file_atomic(marker.string(), *activation, 0600,
                               existing_mode::replace);
  if (w.outcome == write_outcome::failed)
    return w.error;
  return {};
}

std::vector<plugin_skill> enabled_plugin_skills(const std::string& workspace,
                                                const std::string& config_dir) {
  std::vector<plugin_skill> out;
  if (config_dir.empty())
    return out;
  for (auto& p : installed_plugins(workspace)) {
    std::vector<std::string> files;
    auto names = plugin_skill_names(p, &files);
    if (names.empty() || !plugin_enabled(workspace, config_dir, p))
      continue;
    for (size_t i = 0; i < names.size(); ++i)
      out.push_back({names[i], files[i]});
  }
  return out;
}

} // namespace nb
