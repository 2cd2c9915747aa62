// OpenAI-wire embeddings: POST <apiBase>/embeddings {model, input[],
// dimensions?} → data[].embedding. Works with OpenAI, vLLM, Ollama and
// llama.cpp's server. Blocking (the index's own thread). Answers with the
// wrong count or dimensions, NaNs or zero vectors are errors.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/memory_config.hpp"
#include "config/settings.hpp"

namespace nb::chan {
class http_endpoint;
}

namespace nb::memory {

/// Where and how to embed, resolved from the config.
struct embed_endpoint {
  std::string provider; ///< its providers.<name>, for messages
  std::string api_base;
  std::string api_key;
  std::map<std::string, std::string> headers;
  std::string model;
  int32_t dimensions = 0; ///< 0: whatever the model answers
  int32_t batch_size = 64;
  std::chrono::seconds timeout{30};
};

/// Resolves agents.defaults.memory.embeddings against providers.<name>.
/// `problem` says why there are no embeddings ("" = usable); with no
/// provider configured the result is unusable and the problem says so.
struct embed_choice {
  embed_endpoint endpoint;
  std::string problem;
  bool usable() const { return problem.empty(); }
};
embed_choice choose_embeddings(const settings& cfg,
                               const memory_settings& mem);

/// What one request gave: unit vectors in input order, or an error.
struct embed_result {
  std::vector<std::vector<float>> vectors;
  std::string error;
  bool ok() const { return error.empty(); }
};

class embed_client {
public:
  explicit embed_client(embed_endpoint ep);
  ~embed_client();
  embed_client(const embed_client&) = delete;
  embed_client& operator=(const embed_client&) = delete;

  const embed_endpoint& endpoint() const { return ep_; }
  /// The dimensions answers have: configured, or learnt from the first.
  int32_t dims() const { return dims_; }
  /// Embeds `texts` in one request; `timeout` bounds it.
  embed_result embed(const std::vector<std::string>& texts,
                     std::chrono::seconds timeout);

private:
  embed_endpoint ep_;
  int32_t dims_ = 0;
  std::unique_ptr<chan::http_endpoint> http_;
};

} // namespace nb::memory
