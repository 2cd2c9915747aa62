// Tools: the CLI apps a user names in a turn, as the original puts them in
// the turn's runtime context (nanobot/apps/cli/utils.py): the apps the
// WebUI attached to the message (its envelope's "cli_apps", kept in the
// inbound metadata) become "CLI App Attachment" lines; without those, each
// `@name` in the text naming an installed app (installed.json, any case)
// becomes a "CLI App Mention" line. Either line names the app, run_cli_app,
// its entry point and its skill's path, so the model reads the skill and
// runs the app through the tool.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// The inbound metadata key of the attached apps.
inline constexpr const char* cli_apps_meta_key = "cli_apps";

/// The WebUI's attached apps made safe, as the original's
/// normalize_cli_app_mentions: at most 8 objects whose name matches
/// [a-z0-9][a-z0-9_-]{0,63} (any case; lowercased, each once), with
/// display_name, category, entry_point, brand_color (160 bytes at most)
/// and logo_url (512) when they are non-empty strings. Anything
/// else gives an empty array.
nlohmann::json normalize_cli_app_mentions(const nlohmann::json& raw);

/// Whether a turn may need lines: an attachment or an '@' in the text.
bool may_name_cli_apps(const std::string& text,
                       const nlohmann::json& attached);

/// The runtime-context lines for a turn with user text `text` and the
/// normalized `attached` apps: the installed apps are read below
/// `config_dir`, the skill paths checked in `workspace`. Blocking (files):
/// never on a scheduler thread.
std::vector<std::string> cli_app_context_lines(const std::string& text,
                                               const nlohmann::json& attached,
                                               const std::string& config_dir,
                                               const std::string& workspace);

/// What the original's history replay appends to an earlier user line
/// that kept attached apps (`apps`, its "cli_apps") but no runtime context
/// of its own: one "[CLI App Attachment: @name; tool=run_cli_app;
/// entry_point=...; skill=skills/cli-app-name/SKILL.md]" per app (the
/// first 8; an unnamed one skipped; entry point "unknown" when absent),
/// joined by newlines; "" when none.
std::string cli_app_replay_breadcrumbs(const nlohmann::json& apps);

} // namespace nb
