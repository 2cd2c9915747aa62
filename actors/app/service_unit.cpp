#include "actors/app/service_unit.hpp"

#include <cstdlib>
#include <filesystem>
#include <regex>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/common/strings.hpp"

extern char** environ;

namespace nb {

namespace fs = std::filesystem;

namespace {

/// systemd's quoting of one word (the original's _systemd_quote).
std::string unit_quote(const std::string& v) {
  bool plain = !v.empty() && v.find_first_of(" \t\n'\"\\") == std::string::npos;
  if (plain)
    return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// The first executable called `name` on PATH ("" when none).
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= rest.size()) {
    auto end = rest.find(':', start);
    auto dir = rest.substr(start, end == std::string::npos ? std::string::npos
                                                           : end - start);
    auto cand = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(cand.c_str(), X_OK) == 0)
      return cand;
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return "";
}

} // namespace

std::string unit_file_name(const std::string& name) {
  auto v = std::regex_replace(ascii_lower(name), std::regex{"[^a-z0-9_.-]+"}, "-");
  auto b = v.find_first_not_of(".-");
  auto e = v.find_last_not_of(".-");
  v = b == std::string::npos ? "" : v.substr(b, e - b + 1);
  if (v.empty())
    v = "nanobot-gateway";
  auto suffix = std::string{".service"};
  if (v.size() >= suffix.size()
      && v.compare(v.size() - suffix.size(), suffix.size(), suffix) == 0)
    return v;
  return v + suffix;
}

std::string unit_content(const unit_request& rq) {
  std::string exec;
  for (auto& part : rq.command)
    exec += (exec.empty() ? "" : " ") + unit_quote(part);
  std::string out = "[Unit]\n"
                    "Description=Nanobot Gateway ("
                    + rq.name
                    + ")\n"
                      "After=network-online.target\n"
                      "Wants=network-online.target\n"
                      "\n"
                      "[Service]\n"
                      "Type=simple\n";
  if (rq.system) {
    if (!rq.user.empty())
      out += "User=" + rq.user + "\n";
    if (!rq.home.empty())
      out += "Environment=HOME=" + unit_quote(rq.home) + "\n";
  }
  out += "WorkingDirectory=" + unit_quote(rq.working_directory) + "\n"
         + "ExecStart=" + exec + "\n"
         + "Restart=always\n"
           "RestartSec=10\n"
           "NoNewPrivileges=yes\n"
           "\n"
           "[Install]\n"
           "WantedBy="
         + (rq.system ? "multi-user.target" : "default.target") + "\n";
  return out;
}

std::string unit_directory(bool system) {
  if (const char* dir = std::getenv("NANOBOT_SYSTEMD_UNIT_DIR"); dir && *dir)
    return dir;
  if (system)
    return "/etc/systemd/system";
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
    return std::string{xdg} + "/systemd/user";
  const char* home = std::getenv("HOME");
  return std::string{home ? home : "."} + "/.config/systemd/user";
}

std::vector<std::string>
systemctl_access::command(std::vector<std::string> args) const {
  std::vector<std::string> out{program};
  if (!system)
    out.push_back("--user");
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

systemctl_access find_systemctl(bool system) {
  systemctl_access acc;
  acc.system = system;
  if (const char* forced = std::getenv("NANOBOT_SYSTEMCTL");
      forced && *forced) {
    if (::access(forced, X_OK) != 0)
      acc.problem = std::string{forced}
                    + " (NANOBOT_SYSTEMCTL) is not an "
                      "executable program";
    else
      acc.program = forced;
    return acc;
  }
  auto found = on_path("systemctl");
  std::error_code ec;
  if (found.empty())
    acc.problem = "systemctl is not installed";
  else if (!fs::is_directory("/run/systemd/system", ec))
    acc.problem = "systemd is not this machine's init system (no "
                  "/run/systemd/system)";
  else
    acc.program = found;
  return acc;
}

int run_program(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0)
    return 127;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace nb
