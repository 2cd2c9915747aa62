// choose_provider(): the original's Config._match_provider plus the checks
// of providers/factory.py, turned into one value with a readable problem
// and the reason for the choice.
#include "actors/provider/provider_registry.hpp"
#include "actors/common/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace nb {

namespace {

/// What matching found: a registry entry, or a custom providers.<key>.
struct match {
  const provider_spec* spec = nullptr; ///< nullptr = custom key
  std::string name;
  const provider_settings* cfg = nullptr; ///< nullptr = not in config
  std::string reason;
};

/// The inputs of one selection.
struct query {
  const settings& s;
  std::string model; ///< lower case
  const env_reader& env;
};

std::string config_file(const settings& s) {
  return s.config_path.empty() ? "~/.nanobot/config.json" : s.config_path;
}

const provider_settings* config_for(const settings& s, std::string_view name) {
  for (auto& [key, p] : s.providers)
    if (same_provider_name(key, name))
      return &p;
  return nullptr;
}

/// The key for `spec`: the config's, else its environment variable's.
std::string key_of(const query& q, const provider_spec& spec,
                   std::string* source = nullptr) {
  if (auto* p = config_for(q.s, spec.name); p && !p->api_key.empty()) {
    if (source)
      *source = "providers." + std::string{spec.name} + ".apiKey";
    return p->api_key;
  }
  if (spec.env_key.empty())
    return {};
  auto v = q.env(spec.env_key);
  if (!v.empty() && source)
    *source = "$" + std::string{spec.env_key};
  return v;
}

bool has_key(const query& q, const provider_spec& spec) {
  return !key_of(q, spec).empty();
}

bool has_base(const provider_settings* p) {
  return p != nullptr && !p->api_base.empty();
}

bool keyless(const provider_spec& spec) {
  return spec.kind == provider_kind::direct
         || spec.kind == provider_kind::local;
}

match make(const query& q, const provider_spec& spec, std::string reason) {
  return {&spec, std::string{spec.name}, config_for(q.s, spec.name),
          std::move(reason)};
}

std::string_view keyword_hit(const provider_spec& spec,
                             const std::string& model) {
  auto normalized = model;
  std::replace(normalized.begin(), normalized.end(), '-', '_');
  for (auto kw : spec.keywords) {
    if (kw.empty())
      continue;
    auto kw_n = std::string{kw};
    std::replace(kw_n.begin(), kw_n.end(), '-', '_');
    if (model.find(kw) != std::string::npos
        || normalized.find(kw_n) != std::string::npos)
      return kw;
  }
  return {};
}

std::optional<match> match_auto(const query& q) {
  auto& model = q.model;
  auto slash = model.find('/');
  auto prefix = slash == std::string::npos ? std::string{}
                                           : model.substr(0, slash);
  auto* prefixed = prefix.empty() ? nullptr : find_provider_spec(prefix);
  auto& table = provider_table();
  // 1. "deepseek/..." names its provider (if it can be used without a key
  //    or has one).
  if (prefixed && (keyless(*prefixed) || has_key(q, *prefixed)))
    return make(q, *prefixed, "model prefix \"" + prefix + "/\"");
  // 2. "myProxy/..." names a custom providers.<key>.
  if (!prefix.empty())
    for (auto& [key, p] : q.s.providers)
      if (!find_provider_spec(key) && same_provider_name(key, prefix))
        return match{nullptr, key, &p,
                     "model prefix \"" + prefix + "/\" names providers."
                       + key};
  // 3. Keywords in registry order; local servers only when configured and
  //    the model does not name another provider.
  for (auto& spec : table) {
    auto kw = keyword_hit(spec, model);
    if (kw.empty())
      continue;
    auto* p = config_for(q.s, spec.name);
    if (spec.kind == provider_kind::local
        && (!has_base(p) || (prefixed && prefixed != &spec)))
      continue;
    if (keyless(spec) || has_key(q, spec))
      return make(q, spec, "keyword \"" + std::string{kw}
                             + "\" in the model name");
  }
  // 4. A configured local server, preferring one whose port matches.
  if (!prefixed) {
    const provider_spec* first = nullptr;
    for (auto& spec : table) {
      auto* p = config_for(q.s, spec.name);
      if (spec.kind != provider_kind::local || !has_base(p))
        continue;
      if (!spec.base_keyword.empty()
          && p->api_base.find(spec.base_keyword) != std::string::npos)
        return make(q, spec, "configured local apiBase (port "
                               + std::string{spec.base_keyword} + ")");
      if (!first)
        first = &spec;
    }
    if (first)
      return make(q, *first, "configured local apiBase");
  }
  // 5. The first provider with an API key (gateways come first).
  for (auto& spec : table) {
    std::string source;
    if (!key_of(q, spec, &source).empty())
      return make(q, spec, "first provider with an API key (" + source + ")");
  }
  // 6. A custom provider with an apiBase. The original only looks at extra
  //    keys here; we also take providers.custom, which is what a user with
  //    a local vLLM/llama.cpp server most likely wrote.
  for (auto& [key, p] : q.s.providers)
    if (!find_provider_spec(key) && !p.api_base.empty())
      return match{nullptr, key, &p, "custom provider with an apiBase"};
  if (auto* p = config_for(q.s, "custom"); has_base(p))
    return make(q, *find_provider_spec("custom"),
                "providers.custom.apiBase is set");
  return std::nullopt;
}

std::optional<match> match_forced(const query& q, const std::string& forced,
                                  const std::string& key_path,
                                  std::string& problem) {
  auto why = key_path + " is \"" + forced + "\"";
  if (auto* spec = find_provider_spec(forced))
    return make(q, *spec, why);
  for (auto& [key, p] : q.s.providers)
    if (same_provider_name(key, forced))
      return match{nullptr, key, &p, why};
  problem = why + ", which is neither a known provider nor a providers."
            + forced + " section in " + config_file(q.s) + ". Add providers."
            + forced + ".apiBase (and apiKey if the server needs one), or "
            + "set " + key_path + " to \"auto\".";
  return std::nullopt;
}

std::string nothing_configured(const settings& s) {
  return "No LLM provider is configured. Add one to " + config_file(s)
         + ": an API key such as providers.openrouter.apiKey (or "
           "providers.anthropic.apiKey, providers.openai.apiKey, "
           "providers.deepseek.apiKey, ...), or an OpenAI-compatible "
           "server such as vLLM or Ollama with providers.custom.apiBase "
           "(e.g. \"http://localhost:8000/v1\"); then set "
           "agents.defaults.model to a model that provider serves.";
}

std::string unsupported(const settings& s, const provider_spec& spec) {
  return "Provider '" + std::string{spec.name} + "' cannot be used yet: "
         + std::string{spec.unsupported} + ". Configure another provider"
         + " (e.g. providers.openrouter.apiKey or providers.custom.apiBase)"
         + " in " + config_file(s) + ".";
}

std::string missing_key(const settings& s, const provider_spec* spec,
                        const std::string& name) {
  auto text = "No API key configured for provider '" + name + "': set "
              + "providers." + name + ".apiKey in " + config_file(s);
  if (spec && !spec->env_key.empty())
    text += " or the environment variable " + std::string{spec->env_key};
  return text + ".";
}

} // namespace

provider_choice choose_provider(const settings& s, const env_reader& env) {
  return choose_provider(s, s.agent.model, s.agent.provider, env);
}

provider_choice choose_provider(const settings& s, const std::string& model,
                                const std::string& provider,
                                const env_reader& env) {
  provider_choice out;
  query q{s, ascii_lower(model), env};
  std::optional<match> m;
  if (provider.empty() || ascii_lower(provider) == "auto")
    m = match_auto(q);
  else
    m = match_forced(q, provider,
                     provider == s.agent.provider ? "agents.defaults.provider"
                                                  : "the preset's provider",
                     out.problem);
  if (!m) {
    if (out.problem.empty())
      out.problem = nothing_configured(s);
    return out;
  }
  out.name = m->name;
  out.reason = std::move(m->reason);
  auto file = config_file(s);
  if (m->spec && !m->spec->unsupported.empty()) {
    out.problem = unsupported(s, *m->spec);
    return out;
  }
  if (m->spec)
    out.api = m->spec->wire;
  out.api_base = has_base(m->cfg) ? m->cfg->api_base
                 : m->spec        ? std::string{m->spec->default_base}
                                  : std::string{};
  if (m->spec)
    out.thinking_style = m->spec->thinking_style;
  if (m->cfg) {
    out.headers = m->cfg->extra_headers;
    out.extra_body = m->cfg->extra_body;
    out.query = m->cfg->extra_query;
    out.proxy = m->cfg->proxy;
    out.api_type = m->cfg->api_type;
    if (!m->cfg->thinking_style.empty())
      out.thinking_style = m->cfg->thinking_style;
  }
  if (m->spec)
    out.api_key = key_of(q, *m->spec, &out.key_source);
  else if (m->cfg && !m->cfg->api_key.empty()) {
    out.api_key = m->cfg->api_key;
    out.key_source = "providers." + out.name + ".apiKey";
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
    out.problem = missing_key(s, m->spec, out.name);
  } else if (model.empty()) {
    out.problem = "No model is configured: set agents.defaults.model in "
                  + file + " to a model that provider '" + out.name
                  + "' serves.";
  }
  out.model = request_model(out, model);
  return out;
}

std::string provider_status_json(const settings& cfg) {
  auto c = choose_provider(cfg);
  return nlohmann::json{{"ready", c.ready()},
                        {"problem", c.problem},
                        {"provider", c.name},
                        {"model", cfg.agent.model},
                        {"api_base", c.api_base},
                        {"key_source", c.key_source}}
    .dump();
}

} // namespace nb
