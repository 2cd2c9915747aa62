#include "actors/tools/cli_app_skill.hpp"

#include <cctype>
#include <filesystem>
#include <vector>

#include "actors/common/strings.hpp"
#include "actors/skills/agent_plugins.hpp"
#include "actors/skills/front_matter.hpp"
#include "actors/tools/cli_catalog.hpp"
#include "actors/tools/file_io.hpp"

namespace nb {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t skill_text_limit = 250000; // the original's
constexpr const char* skill_note_marker = "<!-- nanobot-cli-app-note -->";

std::string plugin_skill_rel(const std::string& name) {
  auto skill = cli_app_skill_name(name);
  return "plugins/" + skill + "/skills/" + skill + "/SKILL.md";
}

/// "skills/<...>/SKILL.md" without empty, "." or ".." parts, or "".
std::string safe_skill_rel(const std::string& value) {
  if (value.rfind("skills/", 0) != 0)
    return {};
  std::string part, last;
  for (size_t at = 0; at <= value.size(); ++at) {
    if (at < value.size() && value[at] != '/') {
      part += value[at];
      continue;
    }
    if (part.empty() || part == "." || part == "..")
      return {};
    last = std::move(part);
    part.clear();
  }
  return last == "SKILL.md" ? value : std::string{};
}

/// Where the registry's skill_md may be fetched: a safe path below the
/// registry's raw base, or such a URL spelled out; "" otherwise.
std::string skill_content_url(const std::string& skill_md,
                              std::string raw_base) {
  while (!raw_base.empty() && raw_base.back() == '/')
    raw_base.pop_back();
  if (!safe_skill_rel(skill_md).empty())
    return raw_base + "/" + skill_md;
  auto prefix = raw_base + "/";
  if (skill_md.rfind(prefix, 0) == 0
      && !safe_skill_rel(skill_md.substr(prefix.size())).empty())
    return skill_md;
  return {};
}

std::string catalog_description(const json& app) {
  // Catalog copy without a vendor's endorsement ("official ").
  auto text = cli_field(app, "description");
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool boundary = i == 0 || !(std::isalnum(static_cast<unsigned char>(
                                  text[i - 1]))
                                || text[i - 1] == '_');
    if (boundary && ascii_lower(text.substr(i, 8)) == "official"
        && i + 8 < text.size()
        && std::isspace(static_cast<unsigned char>(text[i + 8]))) {
      i += 8;
      while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
      continue;
    }
    out += text[i++];
  }
  return trim_space(out);
}

std::string fallback_skill(const json& app) {
  auto name = cli_field(app, "name");
  if (name.empty())
    name = "unknown";
  auto display = cli_field(app, "display_name");
  if (display.empty())
    display = name;
  auto entry = cli_field(app, "entry_point");
  if (entry.empty())
    entry = "cli-anything-" + name;
  auto description = catalog_description(app);
  if (description.empty())
    description = "Use " + display + " from nanobot.";
  description = description.substr(0, 1024);
  return "---\nname: " + cli_app_skill_name(name) + "\ndescription: "
         + json(description).dump() + "\n---\n\n# " + display
         + "\n\nUse this skill when the user asks nanobot to operate "
         + display + " through its installed CLI app.\n\nIf the user "
         + "attached `@" + name + "` in chat, treat that as the selected app "
         + "for the current turn.\n\n## Commands\n\n```bash\n" + entry
         + " --help\n" + entry + " --json --help\n```\n\nPrefer "
         + "machine-readable output when the CLI supports `--json`.\n";
}

bool usable_skill(const std::string& text) {
  auto fm = parse_front_matter(text);
  if (!fm.present || !fm.error.empty())
    return false;
  auto& d = fm.fields;
  if (!d.contains("description") || !d["description"].is_string())
    return false;
  auto desc = trim_space(d["description"].get<std::string>());
  return !desc.empty() && desc.size() <= 1024;
}

/// `text` cut after each '\n' (the last piece may lack one).
std::vector<std::string> skill_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    auto nl = text.find('\n', at);
    auto end = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(at, end - at));
    at = end;
  }
  return lines;
}

/// The skill as installed: the name line set to ours, the note on running
/// it through run_cli_app after the front matter.
std::string with_run_note(std::string content, const json& app) {
  auto name = cli_field(app, "name");
  auto skill = cli_app_skill_name(name);
  if (!usable_skill(content))
    content = fallback_skill(app);
  auto lines = skill_lines(content);
  bool named = false;
  for (auto& line : lines) {
    // The first line matching ^name\s*:
    auto colon = line.find(':');
    if (colon != std::string::npos && line.rfind("name", 0) == 0
        && trim_space(line.substr(4, colon - 4)).empty()) {
      line = "name: " + skill + (line.back() == '\n' ? "\n" : "");
      named = true;
      break;
    }
  }
  content.clear();
  for (auto& line : lines)
    content += line;
  if (!named)
    if (auto at = content.find("---\n"); at != std::string::npos)
      content.insert(at + 4, "name: " + skill + "\n");
  if (content.find(skill_note_marker) != std::string::npos)
    return content;
  lines = skill_lines(content);
  std::string note = std::string{skill_note_marker}
                     + "\n## Nanobot execution\n\nUse the `run_cli_app` tool "
                       "with `name=\""
                     + name
                     + "\"` for command execution. Do not invoke this CLI "
                       "through shell unless the user explicitly asks. "
                       "Prefer this skill when Runtime Context mentions `@"
                     + name + "` as a CLI App Attachment.\n";
  if (trim_space(lines.empty() ? "" : lines[0]) == "---") {
    size_t at = lines[0].size();
    for (size_t i = 1; i < lines.size(); at += lines[i].size(), ++i)
      if (trim_space(lines[i]) == "---")
        return content.substr(0, at + lines[i].size()) + "\n" + note + "\n"
               + content.substr(at + lines[i].size());
  }
  return note + "\n" + content;
}

std::string fetched_skill(const json& app) {
  auto skill_md = trim_space(cli_field(app, "skill_md"));
  if (skill_md.empty())
    return {};
  auto url = skill_content_url(skill_md, cli_field(app, "_raw_base"));
  if (url.empty())
    return {};
  std::string error;
  auto text = cli_http_get(url, error);
  if (!error.empty() || text.size() >= skill_text_limit)
    return {};
  return text;
}

} // namespace

std::string cli_app_skill_name(const std::string& name, bool legacy) {
  // The original's re.sub("[^a-z0-9_-]+", "-", name.lower()).strip("-").
  std::string out;
  bool in_run = false;
  for (char c : ascii_lower(name)) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'
                || c == '-';
    if (keep)
      out += c;
    else if (!in_run)
      out += '-';
    in_run = !keep;
  }
  auto first = out.find_first_not_of('-');
  auto last = out.find_last_not_of('-');
  out = first == std::string::npos ? "" : out.substr(first, last - first + 1);
  if (!legacy)
    for (auto& c : out)
      if (c == '_')
        c = '-';
  return "cli-app-" + (out.empty() ? std::string{"app"} : out);
}

std::string install_cli_app_skill(const std::string& workspace,
                                  const std::string& config_dir,
                                  const json& app) {
  auto name = cli_field(app, "name");
  auto path = workspace + "/" + plugin_skill_rel(name);
  auto content = fetched_skill(app);
  if (content.empty())
    content = fallback_skill(app);
  if (auto e = write_file_atomic(path, with_run_note(content, app)); !e.empty())
    return e;
  json manifest = {{"$schema", agent_plugin_schema},
                   {"name", cli_app_skill_name(name)}};
  if (auto v = cli_field(app, "version"); !v.empty())
    manifest["version"] = v;
  if (auto d = catalog_description(app); !d.empty())
    manifest["description"] = d;
  auto root = workspace + "/plugins/" + cli_app_skill_name(name);
  if (auto e = write_file_atomic(root + "/plugin.json", manifest.dump(2));
      !e.empty())
    return e;
  std::error_code ec;
  fs::remove_all(workspace + "/skills/" + cli_app_skill_name(name, true), ec);
  return set_agent_plugin_enabled(workspace, config_dir,
                                  cli_app_skill_name(name), true);
}

void remove_cli_app_skill(const std::string& workspace,
                          const std::string& name) {
  std::error_code ec;
  fs::remove_all(workspace + "/plugins/" + cli_app_skill_name(name), ec);
  fs::remove_all(workspace + "/skills/" + cli_app_skill_name(name, true), ec);
}

std::string cli_app_skill_path(const std::string& workspace,
                               const std::string& name) {
  auto canonical = plugin_skill_rel(name);
  auto legacy = "skills/" + cli_app_skill_name(name, true) + "/SKILL.md";
  std::error_code ec;
  if (!fs::is_regular_file(workspace + "/" + canonical, ec)
      && fs::is_regular_file(workspace + "/" + legacy, ec))
    return legacy;
  return canonical;
}

bool cli_app_skill_installed(const std::string& workspace,
                             const std::string& name) {
  std::error_code ec;
  return fs::is_regular_file(workspace + "/" + plugin_skill_rel(name), ec)
         || fs::is_regular_file(workspace + "/skills/"
                                  + cli_app_skill_name(name, true)
                                  + "/SKILL.md",
                                ec);
}

} // namespace nb
