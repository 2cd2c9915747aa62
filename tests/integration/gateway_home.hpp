// A nanobot home with a config file for tests that run the real
// executable: its API and gateway ports are free ones, its provider is
// whatever the test passes (normally the scripted fake_llm).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "config/load.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/harness.hpp"

namespace nb::test {

struct home_with_config {
  temp_home home;
  std::string config;
  int api_port = free_port();
  int gateway_port = free_port();

  explicit home_with_config(nlohmann::json providers,
                            nlohmann::json extra = nlohmann::json::object()) {
    config = (home.dir / "config.json").string();
    nlohmann::json cfg{
      {"agents", {{"defaults", {{"workspace", (home.dir / "ws").string()},
                                {"model", "test-model"}}}}},
      {"providers", providers},
      {"api", {{"port", api_port}}},
      {"gateway", {{"port", gateway_port}}}};
    cfg.merge_patch(extra);
    std::filesystem::create_directories(home.dir / "ws");
    std::ofstream{config} << cfg.dump(2);
  }

  settings loaded() const {
    return std::get<loaded_settings>(load_settings(config)).value;
  }

  child_process start_gateway() const {
    return child_process{{nanobot_binary(), "gateway", "-c", config},
                         home.dir.string()};
  }

  httplib::Result post_chat(const std::string& text, const std::string& session,
                            int timeout_s = 30) const {
    httplib::Client cli{"127.0.0.1", api_port};
    cli.set_read_timeout(timeout_s, 0);
    nlohmann::json body{{"model", "test-model"},
                        {"messages", {{{"role", "user"}, {"content", text}}}},
                        {"session_id", session}};
    return cli.Post("/v1/chat/completions", body.dump(), "application/json");
  }
};

inline nlohmann::json custom_provider(const fake_llm& llm) {
  return {{"custom", {{"apiBase", llm.base_url()}}}};
}

} // namespace nb::test
