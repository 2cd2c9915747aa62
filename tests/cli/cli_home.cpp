#include "tests/cli/cli_home.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>

#include <openssl/sha.h>

namespace nb::test {

cli_home::cli_home(nlohmann::json extra) {
  nlohmann::json cfg{
    {"agents",
     {{"defaults", {{"workspace", workspace}, {"model", "test-model"}}}}},
    {"api", {{"port", api_port}}},
    {"gateway", {{"port", gateway_port}}}};
  cfg.merge_patch(extra);
  std::filesystem::create_directories(workspace);
  write_all(config, cfg.dump(2));
}

run_result cli_home::nanobot(std::vector<std::string> args,
                             const std::vector<std::string>& env,
                             const std::string& stdin_text) const {
  std::vector<std::string> argv{nanobot_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("-c");
  argv.push_back(config);
  child_process p{argv, home.path, env, stdin_text};
  int code = p.wait(std::chrono::seconds(90));
  return {code, p.out(), p.err()};
}

std::string cli_home::gateway_state_file() const {
  // The original's instance id: SHA-1 of the resolved config path.
  auto cfg = std::filesystem::weakly_canonical(config).string();
  unsigned char d[SHA_DIGEST_LENGTH];
  ::SHA1(reinterpret_cast<const unsigned char*>(cfg.data()), cfg.size(), d);
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 8; ++i) {
    id.push_back(hex[d[i] >> 4]);
    id.push_back(hex[d[i] & 0xF]);
  }
  return home.at("run/gateway." + id + ".json");
}

int cli_home::gateway_pid() const {
  std::ifstream in{gateway_state_file()};
  if (!in)
    return 0;
  auto doc = nlohmann::json::parse(in, nullptr, false);
  return doc.is_object() ? doc.value("pid", 0) : 0;
}

gateway_reaper::~gateway_reaper() {
  if (int pid = h.gateway_pid(); pid > 0)
    ::kill(pid, SIGKILL);
}

} // namespace nb::test
