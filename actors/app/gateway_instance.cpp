#include "actors/app/gateway_instance.hpp"

#include <climits>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <openssl/sha.h>
#include <unistd.h>

#include <httplib.h>

#include "config/atomic_file.hpp"
#include "config/load.hpp"

namespace nb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Python's Path.expanduser().resolve(strict=False).
std::string resolved_path(const std::string& p) {
  std::string s = p;
  if (!s.empty() && s[0] == '~') {
    const char* home = std::getenv("HOME");
    s = std::string{home ? home : ""} + s.substr(1);
  }
  std::error_code ec;
  auto abs = fs::absolute(s, ec);
  auto canon = fs::weakly_canonical(abs, ec);
  return (ec ? abs.lexically_normal() : canon).string();
}

std::string instance_suffix(const std::string& workspace,
                            const std::string& config) {
  std::string raw;
  for (auto* v : {&workspace, &config})
    if (!v->empty())
      raw += (raw.empty() ? "" : "|") + *v;
  if (raw.empty())
    return "";
  unsigned char digest[SHA_DIGEST_LENGTH];
  ::SHA1(reinterpret_cast<const unsigned char*>(raw.data()), raw.size(),
         digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 0xF]);
  }
  return out;
}

/// The fields of /proc/<pid>/stat after the command name ("S 1 ..."), or
/// empty when the process is gone.
std::vector<std::string> proc_stat_fields(int pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::string stat((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  auto paren = stat.rfind(')');
  std::vector<std::string> fields;
  if (paren == std::string::npos)
    return fields;
  std::istringstream rest{stat.substr(paren + 1)};
  for (std::string f; rest >> f;)
    fields.push_back(f);
  return fields;
}

} // namespace

gateway_instance gateway_instance_for(const options& opts) {
  gateway_instance inst;
  auto def = resolved_path(default_config_path());
  inst.config_path = resolved_path(
    opts.config_path.empty() ? default_config_path() : opts.config_path);
  inst.default_config = inst.config_path == def;
  if (!opts.workspace.empty())
    inst.workspace = resolved_path(opts.workspace);
  auto base = fs::path{inst.config_path}.parent_path();
  auto suffix = instance_suffix(inst.workspace,
                                inst.default_config ? "" : inst.config_path);
  auto stem = suffix.empty() ? std::string{"gateway"} : "gateway." + suffix;
  inst.run_dir = (base / "run").string();
  inst.logs_dir = (base / "logs").string();
  inst.state_file = inst.run_dir + "/" + stem + ".json";
  inst.log_file = inst.logs_dir + "/" + stem + ".log";
  return inst;
}

std::optional<json> read_gateway_state(const gateway_instance& inst) {
  std::ifstream in{inst.state_file};
  if (!in)
    return std::nullopt;
  auto doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return std::nullopt;
  return doc;
}

std::string write_gateway_state(const gateway_instance& inst,
                                const json& state) {
  std::error_code ec;
  fs::create_directories(inst.run_dir, ec);
  auto r = replace_file_atomic(inst.state_file, state.dump(2) + "\n", 0644);
  return r.outcome == write_outcome::failed ? r.error : "";
}

void clear_gateway_state(const gateway_instance& inst) {
  std::error_code ec;
  fs::remove(inst.state_file, ec);
}

std::string process_identity(int pid) {
  auto f = proc_stat_fields(pid);
  // After the name: state(3) ppid(4) pgrp(5) ... starttime(22).
  if (f.size() < 20)
    return "";
  return f[2] + ":" + f[19];
}

bool process_alive(int pid) {
  if (pid <= 0)
    return false;
  if (::kill(pid, 0) != 0 && errno != EPERM)
    return false;
  auto f = proc_stat_fields(pid);
  return f.empty() || f[0] != "Z";
}

std::string reachable_host(const std::string& host) {
  if (host.empty() || host == "0.0.0.0")
    return "127.0.0.1";
  if (host == "::" || host == "[::]")
    return "::1";
  return host;
}

std::optional<double> health_uptime(const std::string& host, int port) {
  httplib::Client cli{reachable_host(host), port};
  cli.set_connection_timeout(std::chrono::seconds(1));
  cli.set_read_timeout(std::chrono::seconds(2));
  auto res = cli.Get("/health");
  if (!res || res->status != 200)
    return std::nullopt;
  auto doc = json::parse(res->body, nullptr, false);
  if (!doc.is_object() || doc.value("status", "") != "ok")
    return std::nullopt;
  auto up = doc.find("uptime_s");
  return up != doc.end() && up->is_number() ? up->get<double>() : 0.0;
}

gateway_status gateway_status_of(const gateway_instance& inst,
                                 const settings& cfg) {
  gateway_status st;
  auto state = read_gateway_state(inst);
  if (state) {
    auto pid = state->value("pid", json()).is_number_integer()
                 ? state->at("pid").get<int>()
                 : 0;
    auto recorded = state->value("identity", json());
    bool same = true; // a record without an identity trusts the pid
    if (recorded.is_string())
      same = recorded.get<std::string>() == process_identity(pid);
    else if (recorded.is_number_integer()) // older records: the group only
      same = process_identity(pid).rfind(
               std::to_string(recorded.get<int>()) + ":", 0)
             == 0;
    if (pid > 0 && process_alive(pid) && same) {
      st.running = true;
      st.reason = "running";
      st.pid = pid;
      if (state->value("port", json()).is_number_integer())
        st.port = state->at("port").get<int>();
      st.started_at = state->value("started_at", json()).is_string()
                        ? state->at("started_at").get<std::string>()
                        : "";
    } else {
      clear_gateway_state(inst);
      st.reason = "stale_state";
    }
  }
  int port = st.port.value_or(cfg.gateway.port);
  st.health_url = "http://" + reachable_host(cfg.gateway.host) + ":"
                  + std::to_string(port) + "/health";
  st.uptime_s = health_uptime(cfg.gateway.host, port);
  st.health_answers = st.uptime_s.has_value();
  if (!st.running && st.health_answers) {
    // Started in a terminal or by a service manager: no state file.
    st.running = true;
    st.reason = "answering_without_state";
    st.port = port;
  }
  return st;
}

void print_gateway_status(const gateway_status& st,
                          const gateway_instance& inst) {
  std::cout << "Running: " << (st.running ? "yes" : "no") << "\n"
            << "Reason: " << st.reason << "\n";
  if (st.pid > 0)
    std::cout << "PID: " << st.pid << "\n";
  if (st.port)
    std::cout << "Port: " << *st.port << "\n";
  if (!st.started_at.empty())
    std::cout << "Started At: " << st.started_at << "\n";
  if (st.uptime_s) {
    char up[32];
    std::snprintf(up, sizeof up, "%.1f", *st.uptime_s);
    std::cout << "Uptime: " << up << " s\n";
  }
  std::cout << "Health: " << st.health_url
            << (st.health_answers ? " answers" : " does not answer") << "\n"
            << "State: " << inst.state_file << "\n"
            << "Logs: " << inst.log_file << "\n";
}

std::vector<std::string> tail_lines(const std::string& path, size_t lines) {
  std::ifstream in{path, std::ios::binary};
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) {
    all.push_back(std::move(line));
    if (all.size() > lines * 2 + 64) // keep memory bounded on big logs
      all.erase(all.begin(), all.end() - static_cast<long>(lines));
  }
  if (all.size() > lines)
    all.erase(all.begin(), all.end() - static_cast<long>(lines));
  return all;
}

std::string self_executable() {
  char buf[PATH_MAX];
  auto n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "nanobot";
  return std::string(buf, static_cast<size_t>(n));
}

} // namespace nb
