#include "tests/support/fake_embeddings.hpp"

#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>
#include <utility>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace nb::test {

struct fake_embeddings::impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  int dims = 64;
  mutable std::mutex mtx;
  std::vector<std::pair<std::string, int>> phrases;
  int fail_status = 0;
  std::string fail_body;
  int wrong_dims = 0;
  int calls = 0;
  std::vector<size_t> batches;

  static std::string lower(std::string s) {
    for (auto& c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  std::vector<float> vector_of(const std::string& text) const {
    std::vector<float> v(static_cast<size_t>(dims), 0.0f);
    auto t = lower(text);
    bool mapped = false;
    for (auto& [p, axis] : phrases)
      if (t.find(lower(p)) != std::string::npos) {
        v[static_cast<size_t>(axis)] += 1.0f;
        mapped = true;
      }
    // Deterministic "noise" from the text: small for mapped texts (so two
    // paraphrases stay near), the whole direction for unmapped ones.
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text)
      h = (h ^ c) * 1099511628211ull;
    float scale = mapped ? 0.02f : 1.0f;
    for (size_t i = 16; i < v.size(); ++i) {
      h ^= h >> 33;
      h *= 0xff51afd7ed558ccdull;
      h ^= h >> 33;
      v[i] = scale * (static_cast<float>(h % 2001) / 1000.0f - 1.0f);
    }
    double n = 0;
    for (float x : v)
      n += x * x;
    for (auto& x : v)
      x = static_cast<float>(x / std::sqrt(n));
    return v;
  }

  void answer(const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> guard{mtx};
    ++calls;
    if (fail_status != 0) {
      res.status = fail_status;
      res.set_content(fail_body, "application/json");
      return;
    }
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    auto input = body.is_object() ? body.value("input", nlohmann::json())
                                  : nlohmann::json();
    if (input.is_string())
      input = nlohmann::json::array({input});
    if (!input.is_array()) {
      res.status = 400;
      res.set_content(R"({"error":{"message":"input must be a list"}})",
                      "application/json");
      return;
    }
    batches.push_back(input.size());
    nlohmann::json data = nlohmann::json::array();
    for (size_t i = 0; i < input.size(); ++i) {
      auto v = vector_of(input[i].is_string() ? input[i].get<std::string>()
                                              : input[i].dump());
      if (wrong_dims > 0)
        v.resize(static_cast<size_t>(wrong_dims), 0.1f);
      data.push_back({{"object", "embedding"}, {"index", i},
                      {"embedding", v}});
    }
    nlohmann::json out{{"object", "list"},
                       {"data", data},
                       {"model", body.value("model", "fake")},
                       {"usage", {{"prompt_tokens", 1}, {"total_tokens", 1}}}};
    res.set_content(out.dump(), "application/json");
  }
};

fake_embeddings::fake_embeddings(int dims) : impl_(std::make_unique<impl>()) {
  auto& d = *impl_;
  d.dims = dims < 17 ? 17 : dims;
  d.server.set_tcp_nodelay(true);
  d.server.Post(R"((/.*)?/embeddings)",
                [&d](const httplib::Request& req, httplib::Response& res) {
                  d.answer(req, res);
                });
  d.port = d.server.bind_to_any_port("127.0.0.1");
  if (d.port <= 0)
    throw std::runtime_error("fake_embeddings: cannot listen on 127.0.0.1");
  d.thread = std::thread{[&d] { d.server.listen_after_bind(); }};
  while (!d.server.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
}

fake_embeddings::~fake_embeddings() { stop(); }

void fake_embeddings::stop() {
  impl_->server.stop();
  if (impl_->thread.joinable())
    impl_->thread.join();
}

std::string fake_embeddings::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1";
}

int fake_embeddings::dims() const { return impl_->dims; }

void fake_embeddings::map(const std::string& phrase, int axis) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  impl_->phrases.emplace_back(phrase, axis % 16);
}

void fake_embeddings::fail_with(int status, const std::string& body) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  impl_->fail_status = status == 200 && body.empty() ? 0 : status;
  impl_->fail_body = body;
}

void fake_embeddings::answer_dims(int dims) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  impl_->wrong_dims = dims;
}

int fake_embeddings::calls() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->calls;
}

std::vector<size_t> fake_embeddings::batch_sizes() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->batches;
}

std::vector<float> fake_embeddings::vector_of(const std::string& text) const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->vector_of(text);
}

} // namespace nb::test
