// The environment's say: the system lookup, NANOBOT_SECTION__KEY overrides
// and the NANOBOT_*_TIMEOUT_S knobs.
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <unordered_map>

#include "config/keys.hpp"
#include "config/pipeline.hpp"

namespace nb::config {

namespace {

using nlohmann::json;

std::string upper(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(a[i]))
        != std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

/// One step of an override path: the env spelling(s) and how to find the
/// JSON member.
struct step {
  std::string key;   ///< camelCase, or the name as written in the file
  bool name = false; ///< a user-chosen name: match verbatim / as snake_case
};

/// The env spellings of one step's key: UPPER_SNAKE and UPPERCAMEL (one
/// when they are the same). Kept per key: one load asks for the same keys
/// under every provider.
class spelling_cache {
public:
  const std::vector<std::string>& of(const std::string& key) {
    auto [it, added] = spellings_.try_emplace(key);
    if (added) {
      // In byte order, as the first spelling set is matched first.
      std::set<std::string> both{upper(snake_case(key)), upper(key)};
      it->second.assign(both.begin(), both.end());
    }
    return it->second;
  }

private:
  std::unordered_map<std::string, std::vector<std::string>> spellings_;
};

/// The variable names that address `steps`: every part either UPPER_SNAKE
/// or UPPERCAMEL (the lookup itself may ignore case).
std::vector<std::string> env_names(const std::vector<step>& steps,
                                   spelling_cache& spellings) {
  std::vector<std::string> names{"NANOBOT"};
  for (const auto& s : steps) {
    const auto& these = spellings.of(s.key);
    std::vector<std::string> next;
    next.reserve(names.size() * these.size());
    for (const auto& prefix : names)
      for (const auto& spelling : these)
        next.push_back(prefix + (prefix == "NANOBOT" ? "_" : "__") + spelling);
    names = std::move(next);
  }
  return names;
}

/// The member of `obj` that `s` addresses, created (camelCase) if absent.
/// Returns nullptr when the path is blocked by a non-object.
json* member(json& obj, const step& s, std::string& shown) {
  if (obj.is_null())
    obj = json::object(); // created by the previous step
  if (!obj.is_object())
    return nullptr;
  for (auto& [key, value] : obj.items()) {
    bool hit = s.name ? (key == s.key || snake_case(key) == s.key)
                      : key_matches(key, s.key);
    if (hit) {
      shown += (shown.empty() ? "" : ".") + key;
      return &value;
    }
  }
  shown += (shown.empty() ? "" : ".") + s.key;
  return &obj[s.key];
}

void apply_one(json& root, const key_spec& spec, std::vector<step> steps,
               const env_lookup& env, spelling_cache& spellings,
               diagnostics& diag) {
  for (const auto& var : env_names(steps, spellings)) {
    auto raw = env(var);
    if (!raw)
      continue;
    // pydantic-settings decodes JSON; a plain word stays a string, and so
    // does any value meant for a string key ("123" as a model name).
    auto parsed = json::parse(*raw, nullptr, false);
    bool keep = !parsed.is_discarded()
                && (spec.kind != key_kind::string || parsed.is_string());
    json* at = &root;
    std::string shown;
    for (const auto& s : steps)
      if (at = member(*at, s, shown); at == nullptr)
        return; // a non-object in the way: the walk reports it
    *at = keep ? std::move(parsed) : json(*raw);
    diag.env_origin[shown] = var;
    diag.notices.push_back(shown + " set from environment variable " + var);
    return;
  }
}

std::vector<step> steps_of(std::string_view path, const std::string& name) {
  std::vector<step> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    auto dot = path.find('.', pos);
    auto part = path.substr(pos, dot == path.npos ? path.npos : dot - pos);
    out.push_back(part == "*" ? step{name, true} : step{std::string{part}});
    if (dot == path.npos)
      break;
    pos = dot + 1;
  }
  return out;
}

/// Providers that an override may address: those in the file plus every
/// built-in name.
std::vector<std::string> provider_names(const json& root) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& [key, value] : root.items()) {
    if (!key_matches(key, "providers") || !value.is_object())
      continue;
    for (const auto& [name, _] : value.items())
      if (seen.insert(snake_case(name)).second)
        out.push_back(name);
  }
  for (const auto& name : builtin_provider_names())
    if (seen.insert(name).second)
      out.push_back(name);
  return out;
}

/// Parses a number of seconds; nullopt unless the whole text is a number.
std::optional<double> seconds(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  double v = std::strtod(begin, &end);
  while (end != nullptr && std::isspace(static_cast<unsigned char>(*end)))
    ++end;
  if (end == begin || *end != '\0' || !std::isfinite(v))
    return std::nullopt;
  return v;
}

} // namespace

void apply_env_overrides(json& root, const env_lookup& env,
                         diagnostics& diag) {
  // Every override is a NANOBOT_ variable: without one there is nothing to
  // look for (asking for each key's spellings was a fifth of a start).
  if (sets_no_nanobot_variable(env))
    return;
  auto providers = provider_names(root);
  spelling_cache spellings;
  for (const auto& spec : key_table()) {
    if (spec.kind == key_kind::section || spec.kind == key_kind::ignored
        || spec.kind == key_kind::named_sections
        || spec.kind == key_kind::raw_object
        || spec.kind == key_kind::external)
      continue;
    if (spec.path.find('*') == spec.path.npos) {
      apply_one(root, spec, steps_of(spec.path, ""), env, spellings, diag);
      continue;
    }
    if (!spec.path.starts_with("providers."))
      continue; // preset names are the file's own; no override addresses them
    for (const auto& name : providers)
      apply_one(root, spec, steps_of(spec.path, name), env, spellings,
                diag);
  }
}

void read_timeouts(const env_lookup& env, timeout_settings& out,
                   diagnostics& diag) {
  constexpr double cap = 2147483647.0;
  out = timeout_settings{};
  if (auto raw = env("NANOBOT_LLM_TIMEOUT_S")) {
    auto v = seconds(*raw);
    if (v && *v >= 0)
      out.llm_timeout_s = static_cast<int32_t>(std::ceil(std::min(*v, cap)));
    else
      diag.warnings.push_back("NANOBOT_LLM_TIMEOUT_S must be a non-negative "
                              "number of seconds (0 disables); using 300");
  }
  if (auto raw = env("NANOBOT_STREAM_IDLE_TIMEOUT_S")) {
    auto v = seconds(*raw);
    if (!v || *v <= 0) {
      diag.warnings.push_back("NANOBOT_STREAM_IDLE_TIMEOUT_S must be a "
                              "positive number of seconds; using 90");
    } else if (*v > 3600) {
      out.stream_idle_timeout_s = 3600;
      diag.warnings.push_back("NANOBOT_STREAM_IDLE_TIMEOUT_S is above 3600; "
                              "using 3600");
    } else {
      out.stream_idle_timeout_s = static_cast<int32_t>(std::ceil(*v));
    }
  }
}

} // namespace nb::config

namespace nb {

namespace {

/// The system lookup, a named type so that apply_env_overrides can see
/// (std::function::target) that no NANOBOT_ variable is set at all.
struct system_env_lookup {
  /// The NANOBOT_ variables present, by their upper-case names (first in
  /// environ order), taken once: loading a config asks for a few thousand
  /// spellings, and each miss would otherwise scan the whole environment.
  std::shared_ptr<const std::unordered_map<std::string, std::string>>
    nanobot_vars;

  std::optional<std::string> operator()(const std::string& name) const {
    if (name.size() < 8 || !config::iequals(name.substr(0, 8), "NANOBOT_")) {
      if (const char* value = std::getenv(name.c_str()))
        return std::string{value};
      return std::nullopt;
    }
    auto found = nanobot_vars->find(config::upper(name));
    if (found == nanobot_vars->end())
      return std::nullopt;
    // The exact spelling wins over another case of it.
    if (const char* value = std::getenv(name.c_str()))
      return std::string{value};
    return found->second;
  }
};

} // namespace

env_lookup system_env() {
  auto nanobot_vars =
    std::make_shared<std::unordered_map<std::string, std::string>>();
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry{*e};
    auto eq = entry.find('=');
    if (eq != entry.npos && eq >= 8
        && config::iequals(entry.substr(0, 8), "NANOBOT_"))
      nanobot_vars->try_emplace(config::upper(entry.substr(0, eq)),
                                entry.substr(eq + 1));
  }
  return system_env_lookup{std::move(nanobot_vars)};
}

bool config::sets_no_nanobot_variable(const env_lookup& env) {
  const auto* system = env.target<system_env_lookup>();
  return system != nullptr && system->nanobot_vars->empty();
}

} // namespace nb
