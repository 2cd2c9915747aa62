#include "actors/store/process_mark.hpp"

#include <fstream>
#include <sstream>

#include <unistd.h>

namespace nb {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream in{path};
  std::string line;
  std::getline(in, line);
  return line;
}

std::string pid_namespace(const std::string& pid) {
  char buf[128] = {};
  auto n = ::readlink(("/proc/" + pid + "/ns/pid").c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string{};
}

/// Field 22 of /proc/<pid>/stat (starttime); 0 when there is no such
/// process or it is a zombie (dead, not yet reaped). The command name
/// (field 2) may hold spaces and parentheses, so the fields are counted
/// after its last ')'.
int64_t start_ticks(int64_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::stringstream buf;
  buf << in.rdbuf();
  auto text = buf.str();
  auto close = text.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream rest{text.substr(close + 1)};
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 3 && (field == "Z" || field == "X"))
      return 0;
    else if (i == 22)
      return std::stoll(field);
  return 0;
}

process_mark make_this_process() {
  process_mark m;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0)
    m.host = host;
  m.boot_id = first_line("/proc/sys/kernel/random/boot_id");
  m.pid_ns = pid_namespace("self");
  m.pid = ::getpid();
  m.started = start_ticks(m.pid);
  return m;
}

} // namespace

const process_mark& this_process() {
  static const process_mark me = make_this_process();
  return me;
}

nlohmann::json to_json(const process_mark& m) {
  return {{"host", m.host}, {"boot_id", m.boot_id}, {"pid_ns", m.pid_ns},
          {"pid", m.pid},   {"started", m.started}};
}

process_mark mark_from_json(const nlohmann::json& j) {
  process_mark m;
  if (!j.is_object())
    return m;
  auto text = [&](const char* k) {
    auto i = j.find(k);
    return i != j.end() && i->is_string() ? i->get<std::string>() : "";
  };
  auto number = [&](const char* k) {
    auto i = j.find(k);
    return i != j.end() && i->is_number_integer() ? i->get<int64_t>() : 0;
  };
  m.host = text("host");
  m.boot_id = text("boot_id");
  m.pid_ns = text("pid_ns");
  m.pid = number("pid");
  m.started = number("started");
  return m;
}

bool certainly_gone(const process_mark& m) {
  auto& me = this_process();
  // Another boot id may be this host rebooted, or another machine with the
  // same name on a shared directory: only the TTL can tell.
  if (m.pid <= 0 || m.host.empty() || m.host != me.host || m.boot_id.empty()
      || m.boot_id != me.boot_id || m.pid_ns.empty() || m.pid_ns != me.pid_ns)
    return false;
  auto now = start_ticks(m.pid);
  return now == 0 || (m.started != 0 && now != m.started);
}

} // namespace nb
