#include "config/memory_config.hpp"

#include <nlohmann/json.hpp>

#include "config/keys.hpp"
#include "config/section_reader.hpp"

namespace nb {

namespace {

using nlohmann::json;

/// Warns about keys of `obj` that are not in `known`.
void check_keys(const json& obj, const std::string& path,
                const std::vector<std::string>& known,
                std::vector<std::string>& warnings) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (auto& k : known)
      ok = ok || config::key_matches(it.key(), k);
    if (ok)
      continue;
    auto text = "unknown config key " + path + "." + it.key() + " is ignored";
    if (auto best = config::suggest_key(it.key(), known))
      text += " (did you mean " + path + "." + *best + "?)";
    warnings.push_back(std::move(text));
  }
}

memory_load_result memory_from_root(const json& root, const env_lookup& env) {
  memory_settings out;
  config::section_reader r{env, std::nullopt};
  const std::string at = "agents.defaults.memory";
  auto top = root.is_object() ? root : json::object();
  auto agents = r.object(top, "agents", "agents");
  auto defaults = r.object(agents, "defaults", "agents.defaults");
  auto mem = r.object(defaults, "memory", at);
  auto emb = r.object(mem, "embeddings", at + ".embeddings");
  auto& e = out.embeddings;
  if (auto v = r.text(emb, "provider", at + ".embeddings.provider"))
    e.provider = *v;
  if (auto v = r.text(emb, "model", at + ".embeddings.model"))
    e.model = *v;
  if (auto v = r.integer(emb, "dimensions", at + ".embeddings.dimensions", 0,
                         65536))
    e.dimensions = static_cast<int32_t>(*v);
  if (auto v = r.integer(emb, "batchSize", at + ".embeddings.batchSize", 1,
                         2048))
    e.batch_size = static_cast<int32_t>(*v);
  if (auto v = r.integer(emb, "timeout", at + ".embeddings.timeout", 1, 600))
    e.timeout_s = static_cast<int32_t>(*v);
  if (auto v = r.flag(mem, "recall", at + ".recall"))
    out.recall = *v;
  if (auto v = r.integer(mem, "recallK", at + ".recallK", 0, 50))
    out.recall_k = static_cast<int32_t>(*v);
  if (auto v = r.integer(mem, "recallBudgetChars", at + ".recallBudgetChars",
                         0, 100000))
    out.recall_budget_chars = static_cast<int32_t>(*v);
  if (auto v = r.real(mem, "scoreFloor", at + ".scoreFloor", 0, 10))
    out.score_floor = *v;
  if (auto v = r.real(mem, "minSimilarity", at + ".minSimilarity", -1, 1))
    out.min_similarity = *v;
  if (auto v = r.real(mem, "halfLifeDays", at + ".halfLifeDays", 0.01, 1e6))
    out.half_life_days = *v;
  if (r.error)
    return *r.error;
  check_keys(mem, at,
             {"embeddings", "recall", "recallK", "recallBudgetChars",
              "scoreFloor", "minSimilarity", "halfLifeDays"},
             out.warnings);
  check_keys(emb, at + ".embeddings",
             {"provider", "model", "dimensions", "batchSize", "timeout"},
             out.warnings);
  if (!e.provider.empty() && e.model.empty())
    return config_error{at + ".embeddings.model",
                        "an embeddings provider needs a model name"};
  return out;
}

} // namespace

memory_load_result parse_memory_config(const std::string& json_text,
                                       const env_lookup& env) {
  return config::parse_section<memory_load_result>(
    json_text, [&](const json& root) { return memory_from_root(root, env); });
}

memory_load_result load_memory_config(const std::string& path,
                                      const env_lookup& env) {
  return config::load_section<memory_load_result>(
    path, [&](const json& root) { return memory_from_root(root, env); });
}

} // namespace nb
