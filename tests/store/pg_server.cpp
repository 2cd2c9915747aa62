#include "tests/store/pg_server.hpp"

#include <filesystem>
#include <stdexcept>

#include <unistd.h>

#include "tests/integration/child_process.hpp"

namespace nb::test {

namespace {

/// `argv` as the postgres user when we are root.
std::vector<std::string> as_pg_user(std::vector<std::string> argv) {
  if (::geteuid() != 0)
    return argv;
  argv.insert(argv.begin(), {"/usr/sbin/runuser", "-u", "postgres", "--"});
  return argv;
}

void must(const run_result& r, const std::string& what) {
  if (r.code != 0)
    throw std::runtime_error(what + " failed (" + std::to_string(r.code)
                             + "): " + r.out + r.err);
}

} // namespace

pg_server::pg_server() {
  char tmpl[] = "/tmp/nb-pg-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr)
    throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  if (::geteuid() == 0)
    must(run({"/bin/chown", "postgres:postgres", dir_}, dir_), "chown");
  port_ = free_port();
  must(run(as_pg_user({bin_ + "/initdb", "-D", dir_ + "/data", "-U", "nb",
                       "--auth=trust", "-E", "UTF8", "--no-sync"}),
           dir_, std::chrono::seconds(120)),
       "initdb");
  start();
}

void pg_server::start() {
  must(run(as_pg_user({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-l",
                       dir_ + "/server.log", "-w", "-t", "60", "-o",
                       "-p " + std::to_string(port_) + " -k " + dir_
                         + " -c listen_addresses=127.0.0.1",
                       "start"}),
           dir_, std::chrono::seconds(90)),
       "pg_ctl start");
}

pg_server::~pg_server() {
  run(as_pg_user({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-m", "immediate",
                  "-w", "stop"}),
      dir_, std::chrono::seconds(60));
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string pg_server::dsn() const {
  return "host=127.0.0.1 port=" + std::to_string(port_)
         + " user=nb dbname=postgres connect_timeout=10";
}

void pg_server::crash_and_restart() {
  must(run(as_pg_user({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-m",
                       "immediate", "-w", "stop"}),
           dir_, std::chrono::seconds(60)),
       "pg_ctl stop");
  start();
}

pg_server& shared_pg_server() {
  static pg_server server;
  return server;
}

} // namespace nb::test
