// `nanobot sessions list|show KEY|restore-workspace`: the stored sessions of
// the (default or -w) workspace, read from the files under the config
// folder (<config-dir>/sessions/<workspace-id>/), which a running gateway
// keeps writing; reading never changes them.
//
// restore-workspace is the original's downgrade step: it copies every
// session file back to <workspace>/sessions/ (where versions before the
// external session store kept them), leaving files that already match, and
// lists those in the way (exit 1) instead of overwriting them.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/common/file_lock.hpp"
#include "actors/store/session_files.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* sessions_usage =
  "Usage:\n"
  "  nanobot sessions list               key, channel, last update, "
  "messages; newest first\n"
  "  nanobot sessions show KEY           the transcript, tool calls "
  "included\n"
  "  nanobot sessions restore-workspace  copy the sessions back into "
  "<workspace>/sessions\n"
  "                                      (before going back to an older "
  "nanobot)\n"
  "Options: -c/--config FILE, -w/--workspace DIR.\n";

std::string local_minutes(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

/// The channel a key belongs to: its first part ("telegram:42" ->
/// telegram; "unified:default" -> unified).
std::string key_channel(const std::string& key) {
  auto colon = key.find(':');
  return colon == std::string::npos ? "-" : key.substr(0, colon);
}

std::string text_of(const json& content) {
  if (content.is_string())
    return content.get<std::string>();
  if (content.is_null())
    return "";
  std::string out;
  if (content.is_array())
    for (auto& part : content) {
      if (!part.is_object())
        continue;
      auto type = part.value("type", "");
      if (type == "text" && part.value("text", json()).is_string())
        out += (out.empty() ? "" : "\n") + part["text"].get<std::string>();
      else if (!type.empty())
        out += (out.empty() ? "[" : "\n[") + type + "]";
    }
  else
    out = content.dump();
  return out;
}

void print_message(const json& m) {
  auto role = m.value("role", "?");
  auto when = m.value("timestamp", json()).is_string()
                ? m["timestamp"].get<std::string>().substr(0, 19)
                : std::string{};
  std::cout << "[" << (when.empty() ? "-" : when) << "] " << role;
  if (role == "tool")
    std::cout << " (" << m.value("name", "?") << ", "
              << m.value("tool_call_id", "") << ")";
  std::cout << ":";
  auto text = text_of(m.value("content", json()));
  if (!text.empty())
    std::cout << (text.find('\n') == std::string::npos ? " " : "\n  ");
  for (char c : text) {
    std::cout << c;
    if (c == '\n')
      std::cout << "  ";
  }
  std::cout << "\n";
  auto calls = m.value("tool_calls", json());
  if (calls.is_array())
    for (auto& c : calls) {
      auto fn = c.value("function", json::object());
      auto args = fn.value("arguments", json());
      std::cout << "  -> " << fn.value("name", "?") << "("
                << (args.is_string() ? args.get<std::string>() : args.dump())
                << ")  [" << c.value("id", "") << "]\n";
    }
}

int sessions_list(const std::string& dir) {
  auto cat = catalog_sessions(dir);
  if (cat.sessions.empty()) {
    std::cout << "No sessions.\n";
    return 0;
  }
  size_t width = 3;
  for (auto& s : cat.sessions)
    width = std::max(width, s.key.size());
  width = std::min<size_t>(width, 60);
  std::cout << std::left << std::setw(static_cast<int>(width) + 2) << "KEY"
            << std::setw(12) << "CHANNEL" << std::setw(18) << "UPDATED"
            << "MESSAGES\n";
  for (auto& s : cat.sessions)
    std::cout << std::setw(static_cast<int>(width) + 2) << s.key
              << std::setw(12) << key_channel(s.key) << std::setw(18)
              << local_minutes(s.updated_ms) << s.messages
              << (s.title.empty() ? "" : "  " + s.title)
              << (s.archived ? "  (archived)" : "") << "\n";
  return 0;
}

int sessions_show(const std::string& dir, const std::string& key) {
  auto snap = load_session(dir, key);
  if (!snap) {
    std::cerr << "nanobot sessions: " << store_error_text(snap.error()) << "\n";
    return 1;
  }
  if (!snap->existed) {
    std::vector<std::string> keys;
    for (auto& s : list_sessions(dir).sessions)
      keys.push_back(s.key);
    std::cerr << "nanobot sessions: " << unknown_word("session", key, keys)
              << " (`nanobot sessions list` shows them)\n";
    return 1;
  }
  std::cout << "Session " << key << " (" << snap->messages.size()
            << " messages)\n\n";
  for (auto& line : snap->messages) {
    auto m = json::parse(line, nullptr, false);
    if (m.is_object())
      print_message(m);
  }
  if (snap->skipped_lines > 0)
    std::cerr << "(" << snap->skipped_lines << " unreadable lines left out)\n";
  return 0;
}

int sessions_restore(const std::string& dir, const std::string& workspace) {
  auto target = workspace + "/sessions";
  std::error_code ec;
  if (fs::is_symlink(target, ec)) {
    std::cerr << "nanobot sessions: refusing to restore into the symlinked "
                 "folder "
              << target << "\n";
    return 1;
  }
  fs::create_directories(target, ec);
  // The original's lock around every read and write of these files.
  file_lock lock{dir + "/" + session_files_lock, lock_mode::exclusive,
                 std::chrono::seconds(30)};
  if (!lock.held()) {
    std::cerr << "nanobot sessions: " << lock.error() << "\n";
    return 1;
  }
  int restored = 0, unchanged = 0;
  std::vector<std::string> conflicts;
  for (auto& s : list_sessions(dir).sessions) {
    auto name = session_file_name(s.key);
    std::ifstream in{dir + "/" + name, std::ios::binary};
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      conflicts.push_back(dir + "/" + name);
      continue;
    }
    auto dst = target + "/" + name;
    auto r = create_file_atomic(dst, bytes, 0600);
    if (r.outcome == write_outcome::written) {
      ++restored;
    } else if (r.outcome == write_outcome::kept) {
      std::ifstream old{dst, std::ios::binary};
      std::string have((std::istreambuf_iterator<char>(old)),
                       std::istreambuf_iterator<char>());
      if (have == bytes)
        ++unchanged;
      else
        conflicts.push_back(dst);
    } else {
      std::cerr << r.error << "\n";
      conflicts.push_back(dst);
    }
  }
  std::cout << "Restored " << restored << " session file(s) to " << target
            << "; " << unchanged << " already matched.\n";
  if (conflicts.empty())
    return 0;
  std::cerr << "Rollback is incomplete: existing or invalid files require "
               "manual review.\n";
  for (auto& c : conflicts)
    std::cerr << "- " << c << "\n";
  return 1;
}

} // namespace

int cmd_sessions(const options& opts) {
  const std::vector<std::string> actions{"list", "show", "restore-workspace"};
  const auto& action = opts.subcommand;
  if (action.empty()) {
    std::cout << sessions_usage;
    return 2;
  }
  if (std::find(actions.begin(), actions.end(), action) == actions.end())
    return usage_error("sessions", sessions_usage,
                       unknown_word("action", action, actions));
  size_t want = action == "show" ? 1 : 0;
  if (opts.positionals.size() != want)
    return usage_error("sessions", sessions_usage,
                       want
                         ? "show needs one session KEY"
                         : "unexpected argument '" + opts.positionals[0] + "'");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  auto dir = resolve_sessions_dir(*cfg);
  if (!dir) {
    std::cerr << "nanobot sessions: " << store_error_text(dir.error()) << "\n";
    return 1;
  }
  if (action == "list")
    return sessions_list(*dir);
  if (action == "show")
    return sessions_show(*dir, opts.positionals[0]);
  return sessions_restore(*dir, cfg->workspace_path());
}

} // namespace nb
