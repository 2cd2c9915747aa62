// `nanobot gateway install-service|uninstall-service`: the unit written into
// a folder the test owns (NANOBOT_SYSTEMD_UNIT_DIR), systemctl replaced by a
// script that records its arguments (NANOBOT_SYSTEMCTL).
#include <doctest/doctest.h>

#include <filesystem>

#include <sys/stat.h>

#include "tests/cli/cli_home.hpp"

using namespace nb::test;
namespace fs = std::filesystem;

namespace {

struct service_env {
  cli_home h;
  std::string units = h.home.at("units");
  std::string calls = h.home.at("systemctl-calls");
  std::string systemctl = h.home.at("fake-systemctl");
  std::vector<std::string> env;
  service_env() {
    write_all(systemctl, "#!/bin/sh\necho \"$@\" >> '" + calls + "'\n");
    ::chmod(systemctl.c_str(), 0755);
    env = {"NANOBOT_SYSTEMD_UNIT_DIR=" + units,
           "NANOBOT_SYSTEMCTL=" + systemctl};
  }
};

} // namespace

TEST_CASE("install-service writes a user unit and enables it") {
  service_env s;
  auto r = s.h.nanobot({"gateway", "install-service"}, s.env);
  REQUIRE_MESSAGE(r.code == 0, (r.out + r.err));
  CHECK(has(r.out, "Gateway service installed."));
  auto unit = read_all(s.units + "/nanobot-gateway.service");
  auto cfg = fs::weakly_canonical(s.h.config).string();
  CHECK(has(unit, "[Unit]\nDescription=Nanobot Gateway (nanobot-gateway)\n"));
  CHECK(has(unit,
            "ExecStart=" + nanobot_binary() + " gateway --foreground --port "
              + std::to_string(s.h.gateway_port) + " --config " + cfg + "\n"));
  CHECK(has(unit, "Type=simple\n"));
  CHECK(has(unit, "Restart=always\nRestartSec=10\n"));
  CHECK(has(unit, "WantedBy=default.target\n"));
  CHECK_FALSE(has(unit, "User="));
  CHECK(read_all(s.calls)
        == "--user daemon-reload\n--user enable nanobot-gateway.service\n"
           "--user restart nanobot-gateway.service\n");

  r = s.h.nanobot({"gateway", "uninstall-service"}, s.env);
  CHECK(r.code == 0);
  CHECK(has(r.out, "Gateway service uninstalled."));
  CHECK_FALSE(fs::exists(s.units + "/nanobot-gateway.service"));
  CHECK(has(read_all(s.calls), "--user disable --now nanobot-gateway.service\n"
                               "--user daemon-reload\n"));
}

TEST_CASE("install-service --system names the user and multi-user target") {
  service_env s;
  auto r = s.h.nanobot({"gateway", "install-service", "--system", "--name",
                        "My Bot", "--no-start", "-w", s.h.workspace},
                       s.env);
  REQUIRE_MESSAGE(r.code == 0, (r.out + r.err));
  auto unit = read_all(s.units + "/my-bot.service");
  CHECK(has(unit, "User="));
  CHECK(has(unit, "Environment=HOME="));
  CHECK(has(unit, "WorkingDirectory="
                    + fs::weakly_canonical(s.h.workspace).string()));
  CHECK(
    has(unit, "--workspace " + fs::weakly_canonical(s.h.workspace).string()));
  CHECK(has(unit, "WantedBy=multi-user.target\n"));
  CHECK(read_all(s.calls) == "daemon-reload\nenable my-bot.service\n");
}

TEST_CASE("install-service --dry-run prints the unit and writes nothing") {
  service_env s;
  auto r = s.h.nanobot({"gateway", "install-service", "--dry-run"}, s.env);
  CHECK(r.code == 0);
  CHECK(has(r.out, "ExecStart="));
  CHECK(has(r.out, "Path: " + s.units + "/nanobot-gateway.service"));
  CHECK_FALSE(fs::exists(s.units));
  CHECK_FALSE(fs::exists(s.calls));
}

TEST_CASE("install-service without a usable systemctl says so") {
  service_env s;
  auto r = s.h.nanobot({"gateway", "install-service", "--no-start"},
                       {"NANOBOT_SYSTEMD_UNIT_DIR=" + s.units,
                        "NANOBOT_SYSTEMCTL=" + s.h.home.at("no-such-program")});
  CHECK(r.code == 1);
  CHECK(has(r.out, "systemd cannot be used here"));
  CHECK(has(r.out, "nanobot gateway --background"));
  CHECK_FALSE(fs::exists(s.units + "/nanobot-gateway.service"));
}
