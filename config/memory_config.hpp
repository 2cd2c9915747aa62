// agents.defaults.memory: semantic memory (the index, embeddings, recall).
// Loaded beside nb::settings from the same file, with the same ${VAR} and
// NANOBOT_* rules, by the concerns that use it.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "config/load.hpp"

namespace nb {

/// agents.defaults.memory.embeddings: an OpenAI-compatible /embeddings
/// endpoint. Without `provider`, search is full text only.
struct memory_embeddings_settings {
  std::string provider;   ///< a providers.<name> key ("" = none)
  std::string model;      ///< sent as "model"
  int32_t dimensions = 0; ///< sent as "dimensions" when > 0; answers checked
  int32_t batch_size = 64;  ///< texts per request
  int32_t timeout_s = 30;   ///< per request while indexing
  bool enabled() const { return !provider.empty() && !model.empty(); }
};

struct memory_settings {
  memory_embeddings_settings embeddings;
  bool recall = true;               ///< search before each model call
  int32_t recall_k = 5;             ///< snippets added at most
  int32_t recall_budget_chars = 1500; ///< characters of snippets at most
  double score_floor = 0.25;        ///< recall only hits scoring above this
  double min_similarity = 0.3;      ///< cosine below this is no vector hit
  double half_life_days = 30;       ///< time decay (profile, [permanent] exempt)
  /// Unknown keys in the section ("did you mean"), for the log.
  std::vector<std::string> warnings;
};

using memory_load_result = std::variant<memory_settings, config_error>;

/// Reads agents.defaults.memory of the config file at `path` (missing file
/// or section: defaults). Errors name the key path.
memory_load_result load_memory_config(const std::string& path,
                                      const env_lookup& env = system_env());

/// The same from JSON text (tests).
memory_load_result parse_memory_config(const std::string& json_text,
                                       const env_lookup& env = system_env());

} // namespace nb
