// `nanobot provider login|logout NAME`: an API-key provider's key written
// into (or removed from) config.json, everything else in the file kept as it
// was. The original's command signs in to its OAuth providers (openai-codex,
// xai-grok, github-copilot), which this build does not support; for those it
// says so. The key is read from standard input (without echo on a
// terminal), never from the command line, where `ps` and shell history would
// keep it.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <variant>

#include <termios.h>
#include <unistd.h>

#include "actors/app/commands.hpp"
#include "actors/common/file_text.hpp"
#include "actors/common/strings.hpp"
#include "config/config_save.hpp"
#include "config/json_edit.hpp"
#include "config/keys.hpp"
#include "config/load.hpp"
#include "config/provider_edit.hpp"

namespace nb {

namespace {

constexpr const char* provider_usage =
  "Usage:\n"
  "  nanobot provider login NAME [--set-main]   store NAME's API key (read "
  "from stdin)\n"
  "  nanobot provider logout NAME               remove it\n"
  "Options: -c/--config FILE. --set-main also makes NAME "
  "agents.defaults.provider.\n";

bool is_oauth_provider(const std::string& name) {
  return name == "openai_codex" || name == "xai_grok"
         || name == "github_copilot";
}

/// The key typed at a terminal (echo off) or piped in.
std::string read_key(const std::string& name) {
  std::string key;
  if (::isatty(STDIN_FILENO)) {
    std::cerr << "API key for " << name << ": " << std::flush;
    termios old{};
    bool quiet = ::tcgetattr(STDIN_FILENO, &old) == 0;
    if (quiet) {
      auto silent = old;
      silent.c_lflag &= ~static_cast<tcflag_t>(ECHO);
      ::tcsetattr(STDIN_FILENO, TCSANOW, &silent);
    }
    std::getline(std::cin, key);
    if (quiet)
      ::tcsetattr(STDIN_FILENO, TCSANOW, &old);
    std::cerr << "\n";
  } else {
    std::ostringstream all;
    all << std::cin.rdbuf();
    key = all.str();
  }
  return trim_space(key);
}

/// Why an edit of config.json stops: the exit code, and what to say (on
/// standard output for 0: there was no key to remove).
struct key_edit_stop {
  int code = 2;
  std::string message;
};

int report(const key_edit_stop& stop) {
  (stop.code == 0 ? std::cout : std::cerr) << stop.message << "\n";
  return stop.code;
}

/// `current` (config.json's text) with NAME's API key set to `key`, or
/// removed when `key` is "".
std::variant<std::string, key_edit_stop>
edit_key(const std::string& current, const std::string& path,
         const std::string& name, const std::string& key, bool set_main) {
  auto failed = [&](const std::string& why) {
    return key_edit_stop{2, "nanobot provider: " + path + ": " + why};
  };
  auto parsed = config_json::parse_root(current);
  if (auto* e = std::get_if<config_error>(&parsed))
    return failed(e->message());
  auto root = std::move(std::get<config_json::ojson>(parsed));
  auto providers = config_json::section(root, "providers", "providers");
  if (auto* e = std::get_if<config_error>(&providers))
    return failed(e->message());
  auto& all = *std::get<config_json::ojson*>(providers);
  config_json::ojson* entry = nullptr;
  for (auto it = all.begin(); it != all.end(); ++it)
    if (config_json::loose(it.key()) == config_json::loose(name))
      entry = &*it;
  if (key.empty()) {
    if (!entry || !entry->is_object() || !config_json::find(*entry, "apiKey"))
      return key_edit_stop{0, "No API key for " + name + " in " + path + "."};
    config_json::erase(*entry, "apiKey");
    return config_json::dump(root);
  }
  if (!entry)
    entry = &all[name];
  if (entry->is_null())
    *entry = config_json::ojson::object();
  if (!entry->is_object())
    return failed("providers." + name + ": expected an object");
  config_json::member(*entry, "apiKey") = key;
  if (set_main) {
    auto agents = config_json::section(root, "agents", "agents");
    auto* a = std::get_if<config_json::ojson*>(&agents);
    auto defaults =
      a ? config_json::section(**a, "defaults", "agents.defaults")
        : std::variant<config_json::ojson*, config_error>{
          config_error{"agents", "expected an object"}};
    if (auto* e = std::get_if<config_error>(&defaults))
      return failed(e->message());
    config_json::member(*std::get<config_json::ojson*>(defaults),
                        "provider") = name;
  }
  return config_json::dump(root);
}

} // namespace

int cmd_provider(const options& opts) {
  const std::vector<std::string> actions{"login", "logout"};
  const auto& action = opts.subcommand;
  if (action.empty()) {
    std::cout << provider_usage;
    return 2;
  }
  if (action != "login" && action != "logout")
    return usage_error("provider", provider_usage,
                       unknown_word("action", action, actions));
  if (opts.positionals.size() != 1)
    return usage_error("provider", provider_usage,
                       action + " needs one provider NAME");
  auto name = opts.positionals[0];
  for (auto& c : name)
    if (c == '-')
      c = '_';
  name = ascii_lower(name);
  if (is_oauth_provider(name)) {
    std::cerr << "nanobot provider: " << opts.positionals[0]
              << " signs in with OAuth, which this build does not support; "
                 "use an API-key provider (openrouter, openai, anthropic, "
                 "...).\n";
    return 1;
  }
  const auto& known = config::builtin_provider_names();
  if (std::find(known.begin(), known.end(), name) == known.end())
    return usage_error("provider", provider_usage,
                       unknown_word("provider", opts.positionals[0], known));
  auto path =
    opts.config_path.empty() ? default_config_path() : opts.config_path;
  bool logout = action == "logout";
  std::string key;
  if (!logout) {
    // A file the key cannot go into is reported before the key is asked.
    auto trial = edit_key(read_file_text(path), path, name, "-", opts.set_main);
    if (auto* stop = std::get_if<key_edit_stop>(&trial))
      return report(*stop);
    key = read_key(name);
    if (key.empty()) {
      std::cerr << "nanobot provider: no API key given (type it, or pipe it "
                   "in: `echo $KEY | nanobot provider login "
                << name << "`)\n";
      return 1;
    }
  }
  // Edited again from the file when it changed before the save (the
  // gateway's WebUI, a hand edit): neither change is lost.
  std::optional<key_edit_stop> stopped;
  auto w = edit_config_file(
    path, [&](const std::string& current) -> std::optional<std::string> {
      auto edited = edit_key(current, path, name, key, opts.set_main);
      if (auto* stop = std::get_if<key_edit_stop>(&edited)) {
        stopped = std::move(*stop);
        return std::nullopt;
      }
      return std::move(std::get<std::string>(edited));
    });
  if (stopped)
    return report(*stopped);
  if (w.outcome == write_outcome::failed) {
    std::cerr << "nanobot provider: " << w.error << "\n";
    return 1;
  }
  if (logout) {
    std::cout << "Removed the API key for " << name << " from " << path
              << ".\n";
  } else {
    std::cout << "Saved the API key for " << name << " in " << path
              << " (providers." << name << ".apiKey, file mode 0600).\n";
    if (opts.set_main)
      std::cout << name << " is now the main provider "
                << "(agents.defaults.provider).\n";
  }
  return 0;
}

} // namespace nb
