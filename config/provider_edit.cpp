#include "config/provider_edit.hpp"

#include <cctype>

#include <nlohmann/json.hpp>

#include "config/json_edit.hpp"

namespace nb {

namespace {

using config_json::ojson;
using config_json::loose;
using config_json::member;
using config_json::section;

} // namespace

std::variant<std::string, config_error>
apply_provider_setup(std::string_view current, const provider_setup& s) {
  if (!config_json::valid_name(s.provider))
    return config_error{"agents.defaults.provider",
                        "expected a provider name of letters, digits, '_' "
                        "or '-'"};
  if (s.model.empty())
    return config_error{"agents.defaults.model", "must not be empty"};
  auto parsed = config_json::parse_root(current);
  if (auto* e = std::get_if<config_error>(&parsed))
    return *e;
  auto root = std::move(std::get<ojson>(parsed));
  auto agents = section(root, "agents", "agents");
  if (auto* e = std::get_if<config_error>(&agents))
    return *e;
  auto defaults = section(*std::get<ojson*>(agents), "defaults",
                          "agents.defaults");
  if (auto* e = std::get_if<config_error>(&defaults))
    return *e;
  auto& d = *std::get<ojson*>(defaults);
  member(d, "model") = s.model;
  member(d, "provider") = s.provider;
  auto providers = section(root, "providers", "providers");
  if (auto* e = std::get_if<config_error>(&providers))
    return *e;
  auto& all = *std::get<ojson*>(providers);
  ojson* entry = nullptr;
  for (auto it = all.begin(); it != all.end(); ++it)
    if (loose(it.key()) == loose(s.provider))
      entry = &*it;
  if (!entry)
    entry = &all[s.provider];
  if (entry->is_null())
    *entry = ojson::object();
  if (!entry->is_object())
    return config_error{"providers." + s.provider, "expected an object"};
  if (!s.api_key.empty())
    member(*entry, "apiKey") = s.api_key;
  if (!s.api_base.empty())
    member(*entry, "apiBase") = s.api_base;
  else
    config_json::erase(*entry, "apiBase");
  return config_json::dump(root);
}

void adopt_model_choice(settings& into, const settings& from) {
  auto& a = into.agent;
  const auto& b = from.agent;
  a.model = b.model;
  a.provider = b.provider;
  a.model_preset = b.model_preset;
  a.fallback_models = b.fallback_models;
  a.max_tokens = b.max_tokens;
  a.temperature = b.temperature;
  a.context_window_tokens = b.context_window_tokens;
  into.providers = from.providers;
  into.model_presets = from.model_presets;
}

} // namespace nb
