// The config loader: any bytes as config.json, with ${VAR}s resolved from a
// fixed environment. It must answer settings or an error, never crash.
#include "config/load.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(config) {
  nb::env_lookup env = [](const std::string& name)
    -> std::optional<std::string> {
    if (name == "SET")
      return "value";
    if (name == "NANOBOT_AGENTS__DEFAULTS__MODEL")
      return "env-model";
    return std::nullopt;
  };
  auto result = nb::parse_settings(nb::fuzz::text(data, size),
                                   "/fuzz/config.json", env);
  (void) result;
  return 0;
}
