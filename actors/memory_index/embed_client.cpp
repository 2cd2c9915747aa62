#include "actors/memory_index/embed_client.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "actors/channels/kit/http_call.hpp"
#include "actors/memory_index/vector_set.hpp"
#include "actors/provider/provider_registry.hpp"

namespace nb::memory {

using nlohmann::json;

embed_choice choose_embeddings(const settings& cfg,
                               const memory_settings& mem) {
  embed_choice out;
  auto& e = mem.embeddings;
  if (!e.enabled()) {
    out.problem = "no embeddings provider configured "
                  "(agents.defaults.memory.embeddings)";
    return out;
  }
  auto choice = choose_provider(cfg, e.model, e.provider);
  auto& ep = out.endpoint;
  ep.provider = e.provider;
  ep.model = e.model;
  ep.dimensions = e.dimensions;
  ep.batch_size = e.batch_size;
  ep.timeout = std::chrono::seconds(e.timeout_s);
  ep.api_base = choice.api_base;
  ep.api_key = choice.api_key;
  ep.headers = choice.headers;
  if (ep.api_base.empty())
    out.problem = "the embeddings provider \"" + e.provider
                  + "\" has no apiBase (providers." + e.provider
                  + ".apiBase)";
  else if (choice.api == wire_api::anthropic)
    out.problem = "the embeddings provider \"" + e.provider
                  + "\" does not speak the OpenAI embeddings API";
  return out;
}

embed_client::embed_client(embed_endpoint ep)
  : ep_(std::move(ep)), dims_(ep_.dimensions),
    http_(std::make_unique<chan::http_endpoint>(ep_.api_base)) {}

embed_client::~embed_client() = default;

embed_result embed_client::embed(const std::vector<std::string>& texts,
                                 std::chrono::seconds timeout) {
  embed_result out;
  if (texts.empty())
    return out;
  json body{{"model", ep_.model}, {"input", texts},
            {"encoding_format", "float"}};
  if (ep_.dimensions > 0)
    body["dimensions"] = ep_.dimensions;
  auto headers = ep_.headers;
  if (!ep_.api_key.empty())
    headers["Authorization"] = "Bearer " + ep_.api_key;
  auto reply = http_->call("POST", "/embeddings",
                           body.dump(-1, ' ', false,
                                     json::error_handler_t::replace),
                           headers, timeout);
  if (reply.status == 0) {
    out.error = "embeddings endpoint unreachable: " + reply.error;
    return out;
  }
  if (!reply.ok()) {
    std::string detail;
    if (reply.json.is_object() && reply.json.contains("error")) {
      auto& e = reply.json["error"];
      detail = e.is_object() ? e.value("message", std::string{})
               : e.is_string() ? e.get<std::string>()
                               : std::string{};
    }
    out.error = "embeddings endpoint answered HTTP "
                + std::to_string(reply.status)
                + (detail.empty() ? "" : ": " + detail.substr(0, 200));
    return out;
  }
  if (!reply.json.is_object()) {
    out.error = "embeddings answer is not a JSON object (NaN or a cut body?)";
    return out;
  }
  auto data = reply.json.value("data", json());
  if (!data.is_array() || data.size() != texts.size()) {
    out.error = "embeddings answer has " + std::to_string(data.is_array()
                                                             ? data.size()
                                                             : 0)
                + " vectors for " + std::to_string(texts.size()) + " texts";
    return out;
  }
  out.vectors.resize(texts.size());
  for (size_t i = 0; i < data.size(); ++i) {
    auto& item = data[i];
    auto idx = item.is_object() && item.value("index", json()).is_number_integer()
                 ? item["index"].get<int64_t>()
                 : static_cast<int64_t>(i);
    auto emb = item.is_object() ? item.value("embedding", json()) : json();
    if (idx < 0 || idx >= static_cast<int64_t>(texts.size()) || !emb.is_array()
        || emb.empty()) {
      out.error = "embeddings answer item " + std::to_string(i)
                  + " has no usable embedding";
      out.vectors.clear();
      return out;
    }
    auto want = dims_ > 0 ? dims_ : static_cast<int32_t>(emb.size());
    if (static_cast<int32_t>(emb.size()) != want) {
      out.error = "embeddings answer has " + std::to_string(emb.size())
                  + " dimensions, expected " + std::to_string(want);
      out.vectors.clear();
      return out;
    }
    std::vector<float> v;
    v.reserve(emb.size());
    for (auto& x : emb) {
      if (!x.is_number()) {
        out.error = "embeddings answer holds a non-number (NaN?)";
        out.vectors.clear();
        return out;
      }
      v.push_back(x.get<float>());
    }
    if (!normalize_vector(v)) {
      out.error = "embeddings answer holds a zero or non-finite vector";
      out.vectors.clear();
      return out;
    }
    if (dims_ == 0)
      dims_ = want;
    out.vectors[static_cast<size_t>(idx)] = std::move(v);
  }
  for (auto& v : out.vectors)
    if (v.empty()) {
      out.error = "embeddings answer repeats an index";
      out.vectors.clear();
      return out;
    }
  return out;
}

} // namespace nb::memory
