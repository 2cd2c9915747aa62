// choose_provider(): the original's Config._match_provider plus the checks
// of providers/factory.py, turned into one value with a readable problem.
#include "actors/provider/provider_registry.hpp"

#include <algorithm>
#include <cctype>

namespace nb {

namespace {

/// What matching found: a registry entry, or a custom providers.<key>.
struct match {
  const provider_spec* spec = nullptr; ///< nullptr = custom key
  std::string name;
  const provider_settings* cfg = nullptr; ///< nullptr = not in config
};

std::string lower(std::string_view s) {
  std::string out{s};
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return out;
}

std::string config_file(const settings& s) {
  return s.config_path.empty() ? "~/.nanobot/config.json" : s.config_path;
}

const provider_settings* config_for(const settings& s, std::string_view name) {
  for (auto& [key, p] : s.providers)
    if (same_provider_name(key, name))
      return &p;
  return nullptr;
}

bool has_key(const provider_settings* p) {
  return p != nullptr && !p->api_key.empty();
}

bool has_base(const provider_settings* p) {
  return p != nullptr && !p->api_base.empty();
}

bool keyless(const provider_spec& spec) {
  return spec.kind == provider_kind::direct
         || spec.kind == provider_kind::local;
}

match make(const settings& s, const provider_spec& spec) {
  return {&spec, std::string{spec.name}, config_for(s, spec.name)};
}

bool keyword_hit(const provider_spec& spec, const std::string& model) {
  auto normalized = model;
  std::replace(normalized.begin(), normalized.end(), '-', '_');
  for (auto kw : spec.keywords) {
    if (kw.empty())
      continue;
    auto kw_n = std::string{kw};
    std::replace(kw_n.begin(), kw_n.end(), '-', '_');
    if (model.find(kw) != std::string::npos
        || normalized.find(kw_n) != std::string::npos)
      return true;
  }
  return false;
}

std::optional<match> match_auto(const settings& s) {
  auto model = lower(s.agent.model);
  auto slash = model.find('/');
  auto prefix = slash == std::string::npos ? std::string{}
                                           : model.substr(0, slash);
  auto* prefixed = prefix.empty() ? nullptr : find_provider_spec(prefix);
  auto& table = provider_table();
  // 1. "deepseek/..." names its provider (if it can be used without a key
  //    or has one).
  if (prefixed && (keyless(*prefixed) || has_key(config_for(s, prefix))))
    return make(s, *prefixed);
  // 2. "myProxy/..." names a custom providers.<key>.
  if (!prefix.empty())
    for (auto& [key, p] : s.providers)
      if (!find_provider_spec(key) && same_provider_name(key, prefix))
        return match{nullptr, key, &p};
  // 3. Keywords in registry order; local servers only when configured and
  //    the model does not name another provider.
  for (auto& spec : table) {
    if (!keyword_hit(spec, model))
      continue;
    auto* p = config_for(s, spec.name);
    if (spec.kind == provider_kind::local
        && (!has_base(p) || (prefixed && prefixed != &spec)))
      continue;
    if (keyless(spec) || has_key(p))
      return make(s, spec);
  }
  // 4. A configured local server, preferring one whose port matches.
  if (!prefixed) {
    const provider_spec* first = nullptr;
    for (auto& spec : table) {
      auto* p = config_for(s, spec.name);
      if (spec.kind != provider_kind::local || !has_base(p))
        continue;
      if (!spec.base_keyword.empty()
          && p->api_base.find(spec.base_keyword) != std::string::npos)
        return make(s, spec);
      if (!first)
        first = &spec;
    }
    if (first)
      return make(s, *first);
  }
  // 5. The first provider with an API key (gateways come first).
  for (auto& spec : table)
    if (has_key(config_for(s, spec.name)))
      return make(s, spec);
  // 6. A custom provider with an apiBase. The original only looks at extra
  //    keys here; we also take providers.custom, which is what a user with
  //    a local vLLM/llama.cpp server most likely wrote.
  for (auto& [key, p] : s.providers)
    if (!find_provider_spec(key) && !p.api_base.empty())
      return match{nullptr, key, &p};
  if (auto* p = config_for(s, "custom"); has_base(p))
    return make(s, *find_provider_spec("custom"));
  return std::nullopt;
}

std::optional<match> match_forced(const settings& s, std::string& problem) {
  auto& forced = s.agent.provider;
  if (auto* spec = find_provider_spec(forced))
    return make(s, *spec);
  for (auto& [key, p] : s.providers)
    if (same_provider_name(key, forced))
      return match{nullptr, key, &p};
  problem = "agents.defaults.provider is \"" + forced
            + "\", which is neither a known provider nor a providers."
            + forced + " section in " + config_file(s) + ". Add providers."
            + forced + ".apiBase (and apiKey if the server needs one), or "
            + "set agents.defaults.provider to \"auto\".";
  return std::nullopt;
}

std::string nothing_configured(const settings& s) {
  return "No LLM provider is configured. Add one to " + config_file(s)
         + ": an API key such as providers.openrouter.apiKey (or "
           "providers.openai.apiKey, providers.deepseek.apiKey, ...), or an "
           "OpenAI-compatible server such as vLLM or Ollama with "
           "providers.custom.apiBase (e.g. \"http://localhost:8000/v1\"); "
           "then set agents.defaults.model to a model that provider serves.";
}

std::string unsupported(const settings& s, const provider_spec& spec) {
  auto file = config_file(s);
  if (spec.name == "anthropic") {
    auto model = s.agent.model.substr(s.agent.model.rfind('/') + 1);
    return std::string{spec.unsupported} + ". Use Claude through OpenRouter"
           + " (set providers.openrouter.apiKey and agents.defaults.model "
           + "\"anthropic/" + model + "\"), or point providers.custom.apiBase"
           + " at an OpenAI-compatible endpoint, in " + file + ".";
  }
  return "Provider '" + std::string{spec.name} + "' cannot be used yet: "
         + std::string{spec.unsupported} + ". Configure an OpenAI-compatible"
         + " provider instead (e.g. providers.openrouter.apiKey or "
         + "providers.custom.apiBase) in " + file + ".";
}

} // namespace

provider_choice choose_provider(const settings& s) {
  provider_choice out;
  std::optional<match> m;
  if (s.agent.provider.empty() || lower(s.agent.provider) == "auto")
    m = match_auto(s);
  else
    m = match_forced(s, out.problem);
  if (!m) {
    if (out.problem.empty())
      out.problem = nothing_configured(s);
    return out;
  }
  out.name = m->name;
  auto file = config_file(s);
  if (m->spec && !m->spec->unsupported.empty()) {
    out.problem = unsupported(s, *m->spec);
    return out;
  }
  out.api_base = has_base(m->cfg) ? m->cfg->api_base
                 : m->spec        ? std::string{m->spec->default_base}
                                  : std::string{};
  if (m->cfg) {
    out.api_key = m->cfg->api_key;
    out.headers = m->cfg->extra_headers;
  }
  auto key_path = "providers." + out.name;
  if (out.api_base.empty()) {
    out.problem = "Provider '" + out.name + "' needs the URL of its server: "
                  + "set " + key_path + ".apiBase in " + file
                  + " (e.g. \"http://localhost:8000/v1\").";
  } else if (!parse_base_url(out.api_base)) {
    out.problem = key_path + ".apiBase \"" + out.api_base + "\" in " + file
                  + " is not an http:// or https:// URL.";
  } else if (out.api_key.empty() && m->spec && !keyless(*m->spec)
             && !is_local_base(out.api_base)) {
    out.problem = "No API key configured for provider '" + out.name
                  + "': set " + key_path + ".apiKey in " + file + ".";
  } else if (s.agent.model.empty()) {
    out.problem = "No model is configured: set agents.defaults.model in "
                  + file + " to a model that provider '" + out.name
                  + "' serves.";
  }
  out.model = request_model(out, s.agent.model);
  return out;
}

} // namespace nb
