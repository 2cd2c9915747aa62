// The config.json a test writes for a gateway it runs in process, so the
// WebUI's routes (which read and save the file) see the settings the gateway
// runs with: the agent's workspace and the scripted model behind "custom".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nb::test {

/// {"agents": {...}, "providers": {"custom": ...}}; a test adds its tools
/// and channels before writing it.
inline nlohmann::json scripted_model_config(const std::string& workspace,
                                            const std::string& api_base) {
  return {{"agents",
           {{"defaults",
             {{"workspace", workspace},
              {"model", "test-model"},
              {"provider", "custom"}}}}},
          {"providers", {{"custom", {{"apiBase", api_base}}}}}};
}

} // namespace nb::test
