// Shared by the libFuzzer targets: their entry point, the input as text,
// and splitting it in two (before and after the first NUL byte) for targets
// with two inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

/// A harness's entry point: libFuzzer's LLVMFuzzerTestOneInput in the fuzz
/// build (tests/fuzz/run.sh), nb_fuzz_<name> in the ordinary build, where
/// one test (replay_test.cpp) replays every harness's seeds, the harnesses
/// compiled together in unity batches.
#ifdef NB_FUZZ_BUILD
#define NB_FUZZ_ENTRY(name)                                                  \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
#else
#define NB_FUZZ_ENTRY(name)                                                  \
  extern "C" int nb_fuzz_##name(const uint8_t* data, size_t size)
#endif

namespace nb::fuzz {

inline std::string text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

inline std::pair<std::string, std::string> split(const std::string& s) {
  auto nul = s.find('\0');
  if (nul == std::string::npos)
    return {s, {}};
  return {s.substr(0, nul), s.substr(nul + 1)};
}

/// The input as JSON, or a discarded value when it is not JSON.
inline nlohmann::json json(const std::string& s) {
  return nlohmann::json::parse(s, nullptr, false);
}

} // namespace nb::fuzz
