// A scripted OpenAI /v1/embeddings server on 127.0.0.1 for tests and the
// memory benchmark: deterministic vectors, with phrases mapped to concept
// axes so paraphrases get near vectors and ranking is checkable.
//
//   nb::test::fake_embeddings emb;          // any free port, 64 dimensions
//   emb.map("coffee", 3); emb.map("espresso", 3);   // same concept
//   settings.providers["emb"].api_base = emb.base_url();
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace nb::test {

class fake_embeddings {
public:
  explicit fake_embeddings(int dims = 64);
  ~fake_embeddings();
  fake_embeddings(const fake_embeddings&) = delete;
  fake_embeddings& operator=(const fake_embeddings&) = delete;

  std::string base_url() const; ///< "http://127.0.0.1:<port>/v1"
  int dims() const;

  /// Texts containing `phrase` (any case) point along concept `axis`
  /// (0..15); other texts get a pseudo-random direction in the other axes.
  void map(const std::string& phrase, int axis);
  /// From now on answer every request with `status` and `body` verbatim
  /// ("" body after a 200: back to normal answers).
  void fail_with(int status, const std::string& body);
  /// Answer with this many dimensions instead (0: the real number).
  void answer_dims(int dims);
  void stop();

  int calls() const;                   ///< requests answered
  std::vector<size_t> batch_sizes() const; ///< inputs per request
  /// The vector the server gives `text` (unit length).
  std::vector<float> vector_of(const std::string& text) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace nb::test
