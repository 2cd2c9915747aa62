#include "actors/tools/cli_install_argv.hpp"

#include <cstdlib>
#include <string_view>

#include "actors/common/strings.hpp"
#include "actors/tools/cli_app_skill.hpp"
#include "actors/tools/cli_apps.hpp"
#include "actors/tools/cli_catalog.hpp"

namespace nb {

namespace {

using nlohmann::json;

bool has_shell_meta(const std::string& command) {
  for (auto meta : {"|", "&&", "||", ";", "$(", "`", ">", "<"})
    if (command.find(meta) != std::string::npos)
      return true;
  return false;
}

bool is_python(const std::string& word) {
  return word == "python" || word == "python3";
}

bool is_pip_install(const std::string& command) {
  auto t = cli_shlex_split(command);
  if (!t)
    return false;
  auto& w = *t;
  return (w.size() >= 3 && w[0] == "pip" && w[1] == "install")
         || (w.size() >= 5 && is_python(w[0]) && w[1] == "-m" && w[2] == "pip"
             && w[3] == "install");
}

std::string path_var() {
  const char* p = std::getenv("PATH");
  return p ? p : "/usr/bin:/bin";
}

/// The original's pip prefix runs its own interpreter; ours is python3 (or
/// uv against the system's).
cli_argv_or_refusal pip_argv(const json& app, const std::string& action,
                         const json& installed_entry) {
  std::vector<std::string> prefix;
  bool uv = false;
  if (!cli_which("python3").empty())
    prefix = {"python3", "-m", "pip"};
  else if (!cli_which("uv").empty()) {
    prefix = {"uv", "pip"};
    uv = true;
  } else
    return cli_install_refusal{"pip is not available and uv is not installed"};
  if (action == "uninstall") {
    prefix.push_back("uninstall");
    prefix.push_back(uv ? "--system" : "-y");
    auto dist = trim_space(cli_field(installed_entry, "pip_distribution"));
    auto package = dist.empty() ? trim_space(cli_field(app, "pip_package"))
                                : dist;
    if (package.empty()) {
      auto t = cli_shlex_split(cli_field(app, "install_cmd"));
      std::vector<std::string> args;
      if (t && t->size() >= 2 && (*t)[0] == "pip")
        args.assign(t->begin() + 2, t->end());
      else if (t && t->size() >= 4)
        args.assign(t->begin() + 4, t->end());
      std::erase_if(args, [](auto& a) { return a.rfind('-', 0) == 0; });
      if (args.size() == 1 && args[0].rfind("git+", 0) != 0)
        package = args[0];
    }
    if (package.empty()) {
      auto entry = trim_space(cli_field(app, "entry_point"));
      package = entry.rfind("cli-anything-", 0) == 0
                  ? entry
                  : "cli-anything-"
                      + cli_app_skill_name(cli_field(app, "name")).substr(8);
    }
    prefix.push_back(package);
    return prefix;
  }
  auto command = cli_field(app, "install_cmd");
  if (!is_pip_install(command) || has_shell_meta(command))
    return cli_install_refusal{"unsupported pip install command"};
  auto t = *cli_shlex_split(command);
  std::vector<std::string> args(t.begin() + (t[0] == "pip" ? 2 : 4), t.end());
  prefix.push_back("install");
  if (uv)
    prefix.push_back("--system");
  if (action == "update") {
    prefix.push_back("--upgrade");
    prefix.push_back(uv ? "--reinstall" : "--force-reinstall");
  }
  prefix.insert(prefix.end(), args.begin(), args.end());
  return prefix;
}

cli_argv_or_refusal split_safe(const json& app, const std::string& key,
                           const std::string& expected) {
  auto command = cli_field(app, key.c_str());
  if (command.empty())
    return cli_install_refusal{"no " + key + " is defined for "
                           + cli_field(app, "name")};
  if (has_shell_meta(command))
    return cli_install_refusal{
      "script-style install commands are disabled in this MVP"};
  auto argv = cli_shlex_split(command);
  if (!argv)
    return cli_install_refusal{"invalid command: No closing quotation"};
  if (argv->empty() || (*argv)[0] != expected)
    return cli_install_refusal{"unsupported " + expected + " command"};
  return *argv;
}

} // namespace

/// Python's shlex.split (POSIX): words, quotes and backslashes; nullopt
/// for an unbalanced quote.
std::optional<std::vector<std::string>> cli_shlex_split(
  const std::string& s) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word)
        out.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      auto end = s.find('\'', i + 1);
      if (end == std::string::npos)
        return std::nullopt;
      word += s.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < s.size() && s[j] != '"'; ++j) {
        if (s[j] == '\\' && j + 1 < s.size()
            && std::string_view{"\\\"$`\n"}.find(s[j + 1])
                 != std::string_view::npos)
          ++j;
        word += s[j];
      }
      if (j >= s.size())
        return std::nullopt;
      i = j;
      in_word = true;
    } else if (c == '\\') {
      if (i + 1 >= s.size())
        return std::nullopt;
      word += s[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word)
    out.push_back(std::move(word));
  return out;
}

std::string cli_install_strategy(const json& app) {
  auto manager = ascii_lower(cli_field(app, "package_manager"));
  auto strategy = ascii_lower(cli_field(app, "install_strategy"));
  if (manager == "bundled" || strategy == "bundled")
    return "bundled";
  if (manager == "npm" || manager == "brew" || manager == "uv"
      || manager == "pip")
    return manager;
  if (!cli_field(app, "npm_package").empty())
    return "npm";
  if (is_pip_install(cli_field(app, "install_cmd")))
    return "pip";
  return "unsupported";
}

bool cli_install_supported(const json& app) {
  return cli_install_strategy(app) != "unsupported"
         && !has_shell_meta(cli_field(app, "install_cmd"));
}

std::string cli_which(const std::string& program) {
  return find_on_path(program, path_var());
}

cli_argv_or_refusal cli_manager_argv(const json& app, const std::string& action,
                                     const json& installed_entry) {
  auto strategy = cli_install_strategy(app);
  if (strategy == "pip")
    return pip_argv(app, action, installed_entry);
  if (strategy == "npm") {
    auto npm = cli_which("npm");
    if (npm.empty())
      return cli_install_refusal{"npm is not installed"};
    auto package = cli_field(app, "npm_package");
    if (package.empty())
      return cli_install_refusal{"registry entry has no npm_package"};
    if (action == "install")
      return std::vector<std::string>{npm, "install", "-g", package};
    if (action == "update")
      return std::vector<std::string>{npm, "install", "-g",
                                      package + "@latest"};
    return std::vector<std::string>{npm, "uninstall", "-g", package};
  }
  if (strategy == "brew" || strategy == "uv")
    return split_safe(app, action + "_cmd", strategy);
  return cli_install_refusal{"this CLI app uses an unsupported install strategy"};
}

} // namespace nb
