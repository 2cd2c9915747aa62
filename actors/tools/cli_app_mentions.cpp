#include "actors/tools/cli_app_mentions.hpp"

#include <regex>
#include <set>

#include "actors/common/strings.hpp"
#include "actors/common/utf8.hpp"
#include "actors/tools/cli_app_skill.hpp"
#include "actors/tools/cli_apps.hpp"
#include "actors/tools/cli_catalog.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr size_t attached_apps_max = 8; // the original's cap

/// Said after each line: what the model is to do with the app.
constexpr const char* cli_app_line_advice =
  " Its skill tells how to use it; run it with `run_cli_app`, not the "
  "shell.";

/// A string field trimmed and cut to `limit` bytes; "" when absent.
std::string clipped_mention_field(const json& row, const char* key,
                                  size_t limit) {
  if (!row.contains(key) || !row[key].is_string())
    return {};
  auto text = trim_space(row[key].get<std::string>());
  return std::string{utf8_head(text, limit)}; // whole characters
}

std::string mention_line(const char* label, const std::string& name,
                         const std::string& entry_point,
                         const std::string& skill) {
  return std::string{label} + ": @" + name + " (installed; tool=run_cli_app; "
         + "entry_point=" + (entry_point.empty() ? "unknown" : entry_point)
         + "; skill=" + skill + ")." + cli_app_line_advice;
}

} // namespace

json normalize_cli_app_mentions(const json& raw) {
  static const std::regex app_name{"^[a-z0-9][a-z0-9_-]{0,63}$",
                                   std::regex::icase};
  json out = json::array();
  if (!raw.is_array())
    return out;
  std::set<std::string> seen;
  size_t looked = 0;
  for (auto& item : raw) {
    if (looked++ >= attached_apps_max)
      break;
    if (!item.is_object())
      continue;
    auto name = clipped_mention_field(item, "name", 64);
    if (name.empty() || !std::regex_match(name, app_name))
      continue;
    auto key = ascii_lower(name);
    if (!seen.insert(key).second)
      continue;
    json row{{"name", key}};
    for (auto field : {"display_name", "category", "entry_point", "logo_url",
                       "brand_color"}) {
      auto value = clipped_mention_field(
        item, field, std::string_view{field} == "logo_url" ? 512 : 160);
      if (!value.empty())
        row[field] = value;
    }
    out.push_back(std::move(row));
  }
  return out;
}

bool may_name_cli_apps(const std::string& text, const json& attached) {
  return (attached.is_array() && !attached.empty())
         || text.find('@') != std::string::npos;
}

std::vector<std::string> cli_app_context_lines(const std::string& text,
                                               const json& attached,
                                               const std::string& config_dir,
                                               const std::string& workspace) {
  std::vector<std::string> lines;
  if (attached.is_array() && !attached.empty()) {
    for (auto& item : attached) {
      auto name = ascii_lower(trim_space(cli_field(item, "name")));
      if (!name.empty())
        lines.push_back(mention_line("CLI App Attachment", name,
                                     cli_field(item, "entry_point"),
                                     cli_app_skill_path(workspace, name)));
    }
    return lines;
  }
  if (text.find('@') == std::string::npos || config_dir.empty())
    return lines;
  auto installed = installed_cli_record(config_dir);
  if (installed.empty())
    return lines;
  // The original's mention: '@' at the start or after a space or an
  // opening bracket, the name up to a word boundary.
  static const std::regex mention{R"((^|[\s(\[{])@([a-z0-9_-]+)\b)",
                                  std::regex::icase};
  std::set<std::string> seen;
  for (std::sregex_iterator it{text.begin(), text.end(), mention}, end;
       it != end; ++it) {
    auto wanted = ascii_lower((*it)[2].str());
    auto key = installed_cli_key(installed, wanted);
    if (key.empty() || !seen.insert(ascii_lower(key)).second)
      continue;
    lines.push_back(mention_line("CLI App Mention", key,
                                 cli_field(installed[key], "entry_point"),
                                 cli_app_skill_path(workspace, key)));
  }
  return lines;
}

std::string cli_app_replay_breadcrumbs(const json& apps) {
  std::string out;
  if (!apps.is_array())
    return out;
  size_t seen = 0;
  for (auto& app : apps) {
    if (seen++ == attached_apps_max)
      break;
    if (!app.is_object())
      continue;
    auto field = [&](const char* key) {
      auto i = app.find(key);
      return i != app.end() && i->is_string()
               ? trim_space(i->get<std::string>())
               : std::string{};
    };
    auto name = ascii_lower(field("name"));
    if (name.empty())
      continue;
    auto entry_point = field("entry_point");
    if (!out.empty())
      out += '\n';
    out += "[CLI App Attachment: @" + name + "; tool=run_cli_app; entry_point="
           + (entry_point.empty() ? "unknown" : entry_point)
           + "; skill=skills/cli-app-" + name + "/SKILL.md]";
  }
  return out;
}

} // namespace nb
