// Walks the config tree along the key table: sections, ${VAR} interpolation,
// unknown-key warnings; leaf checks are in check.cpp. Texts name keys, never
// values.
#include <algorithm>
#include <utility>

#include "config/keys.hpp"
#include "config/pipeline.hpp"

namespace nb::config {

namespace {

using nlohmann::json;

std::string join(const std::string& base, const std::string& key) {
  return base.empty() ? display_key(key) : base + "." + display_key(key);
}

class walker {
public:
  walker(settings& out, const env_lookup& env, diagnostics& diag)
    : out_(out), env_(env), diag_(diag) {
    // nop
  }

  std::optional<config_error> run(const json& root) {
    if (auto err = section(root, "", "", ""))
      return err;
    if (missing_.empty())
      return std::nullopt;
    auto reason = "environment variable " + missing_[0].second
                  + " is not set (referenced as ${" + missing_[0].second
                  + "})";
    for (size_t i = 1; i < missing_.size(); ++i)
      reason += (i == 1 ? "; also unset: " : ", ") + missing_[i].second
                + " (at " + missing_[i].first + ")";
    return config_error{missing_[0].first, reason};
  }

private:
  config_error fail(const std::string& leaf_shown, const std::string& shown,
                    std::string reason) const {
    if (auto i = diag_.env_origin.find(leaf_shown);
        i != diag_.env_origin.end())
      reason += " (set by " + i->second + ")";
    return {shown, std::move(reason)};
  }

  std::optional<config_error> section(const json& obj, std::string_view spec,
                                      const std::string& shown,
                                      const std::string& name) {
    if (!obj.is_object())
      return fail(shown, shown, "expected an object, found " + type_name(obj));
    auto kids = children_of(spec);
    for (const auto& [key, value] : obj.items()) {
      auto child = join(shown, key);
      const key_spec* hit = nullptr;
      for (auto* k : kids)
        if (key_matches(key, leaf_name(k->path)))
          hit = k;
      if (hit == nullptr) {
        if (auto* any = wildcard(kids)) {
          if (auto err = raw_object(*any, value, child, key))
            return err;
          continue;
        }
        unknown(kids, shown, key, child);
        continue;
      }
      std::string camel{leaf_name(hit->path)};
      if (key != camel && obj.contains(camel)) {
        diag_.warnings.push_back("both " + join(shown, camel) + " and " + child
                                 + " are set; using " + join(shown, camel));
        continue;
      }
      if (auto err = entry(*hit, value, child, name))
        return err;
    }
    return std::nullopt;
  }

  static const key_spec* wildcard(const std::vector<const key_spec*>& kids) {
    for (auto* k : kids)
      if (k->kind == key_kind::raw_object)
        return k;
    return nullptr;
  }

  /// A user-named object kept verbatim (channels.<name>). Only an enabled
  /// one has its ${VAR}s resolved: a disabled channel is not used, so an
  /// unset variable in it must not stop the gateway.
  std::optional<config_error> raw_object(const key_spec& spec,
                                         const json& value,
                                         const std::string& shown,
                                         const std::string& name) {
    if (value.is_null())
      return std::nullopt;
    if (!value.is_object())
      return fail(shown, shown, "expected an object, found " + type_name(value));
    if (auto depth = raw_depth(value); depth > max_raw_depth)
      return fail(shown, shown, "nested deeper than "
                                  + std::to_string(max_raw_depth) + " levels");
    field_value v;
    for (const auto& [key, flag] : value.items()) {
      if (!key_matches(key, "enabled") || flag.is_null())
        continue;
      if (!flag.is_boolean())
        return fail(shown, join(shown, key),
                    "expected a boolean, found " + type_name(flag));
      v.flag = flag.get<bool>();
    }
    json copy = value;
    if (v.flag && !expand_all(copy, shown))
      return std::nullopt; // reported once the walk is complete
    v.text = copy.dump();
    spec.apply(out_, name, v);
    return std::nullopt;
  }

  static constexpr size_t max_raw_depth = 32;

  /// Nesting depth, without recursion (the input may be hostile).
  static size_t raw_depth(const json& root) {
    size_t deepest = 0;
    std::vector<std::pair<const json*, size_t>> todo{{&root, 1}};
    while (!todo.empty()) {
      auto [at, depth] = todo.back();
      todo.pop_back();
      deepest = std::max(deepest, depth);
      if (depth > max_raw_depth)
        return depth;
      if (at->is_structured())
        for (const auto& kid : *at)
          todo.emplace_back(&kid, depth + 1);
    }
    return deepest;
  }

  /// Resolves ${VAR} in every string of `root`; false if any is unset.
  bool expand_all(json& root, const std::string& shown) {
    bool complete = true;
    std::vector<std::pair<json*, std::string>> todo{{&root, shown}};
    while (!todo.empty()) {
      auto [at, path] = todo.back();
      todo.pop_back();
      if (at->is_string()) {
        auto text = expand(at->get<std::string>(), path);
        complete = complete && text.has_value();
        if (text)
          *at = *text;
      } else if (at->is_object()) {
        for (auto it = at->begin(); it != at->end(); ++it)
          todo.emplace_back(&it.value(), join(path, it.key()));
      } else if (at->is_array()) {
        for (size_t i = 0; i < at->size(); ++i)
          todo.emplace_back(&(*at)[i], path + "[" + std::to_string(i) + "]");
      }
    }
    return complete;
  }

  void unknown(const std::vector<const key_spec*>& kids,
               const std::string& shown, const std::string& key,
               const std::string& child) {
    std::vector<std::string> names;
    for (auto* k : kids)
      names.emplace_back(leaf_name(k->path));
    auto text = "unknown config key " + child + " is ignored";
    if (auto best = suggest_key(key, names))
      text += " (did you mean " + join(shown, *best) + "?)";
    diag_.warnings.push_back(std::move(text));
  }

  std::optional<config_error> entry(const key_spec& spec, const json& value,
                                    const std::string& shown,
                                    const std::string& name) {
    switch (spec.kind) {
      case key_kind::section:
        return section(value, spec.path, shown, name);
      case key_kind::named_sections:
        return named_sections(spec, value, shown);
      case key_kind::external:
        return std::nullopt; // checked by its own loader (cluster_config)
      case key_kind::ignored:
        // Read by read_mcp_servers after the walk; used, not ignored.
        if (spec.path == "tools.mcpServers")
          return std::nullopt;
        if (spec.path == "gateway.exclusiveLanes") {
          diag_.notices.push_back(shown + " is no longer used: each chat's "
                                          "exclusive tool calls run in order "
                                          "in the shared pool "
                                          "(gateway.toolWorkers); ignored");
          return std::nullopt;
        }
        diag_.notices.push_back(shown + ": accepted, not used");
        return std::nullopt;
      default:
        return leaf(spec, value, shown, name);
    }
  }

  std::optional<config_error> named_sections(const key_spec& spec,
                                             const json& value,
                                             const std::string& shown) {
    if (!value.is_object())
      return fail(shown, shown,
                  "expected an object, found " + type_name(value));
    auto inner = std::string{spec.path} + ".*";
    bool providers = spec.path == "providers";
    for (const auto& [key, sub] : value.items()) {
      // Built-in providers answer to their camelCase alias too; custom
      // names (and preset names) are kept as written.
      auto name = snake_case(key);
      const auto& builtin = builtin_provider_names();
      if (!providers
          || std::find(builtin.begin(), builtin.end(), name) == builtin.end())
        name = key;
      if (providers)
        out_.providers[name];
      else
        out_.model_presets[name];
      if (auto err = section(sub, inner, join(shown, key), name))
        return err;
    }
    return std::nullopt;
  }

  /// Replaces ${VAR} in one string; nullopt when a variable is unset.
  std::optional<std::string> expand(const std::string& text,
                                    const std::string& shown) {
    auto result = interpolate(text, env_);
    for (auto& var : result.missing)
      missing_.emplace_back(shown, std::move(var));
    if (!result.missing.empty())
      return std::nullopt;
    return std::move(result.text);
  }

  /// Interpolates every string the leaf holds. A non-string kind written as
  /// "${PORT}" takes the JSON value of the expanded text (pydantic coerces).
  std::optional<json> resolve(const key_spec& spec, const json& value,
                              const std::string& shown) {
    if (value.is_string()) {
      const auto& raw = value.get_ref<const std::string&>();
      auto text = expand(raw, shown);
      if (!text)
        return std::nullopt;
      if (spec.kind == key_kind::string || raw.find("${") == raw.npos)
        return json(*text);
      auto parsed = json::parse(*text, nullptr, false);
      if (parsed.is_discarded() || parsed.is_structured())
        return json(*text);
      return parsed;
    }
    bool list = spec.kind == key_kind::string_list && value.is_array();
    bool map = spec.kind == key_kind::string_map && value.is_object();
    if (!list && !map)
      return value;
    json copy = value;
    bool complete = true;
    size_t i = 0;
    for (auto it = copy.begin(); it != copy.end(); ++it, ++i) {
      if (!it->is_string())
        continue;
      auto at = list ? shown + "[" + std::to_string(i) + "]"
                     : join(shown, it.key());
      auto text = expand(it->get<std::string>(), at);
      complete = complete && text.has_value();
      if (text)
        *it = *text;
    }
    if (!complete)
      return std::nullopt;
    return copy;
  }

  std::optional<config_error> leaf(const key_spec& spec, const json& value,
                                   const std::string& shown,
                                   const std::string& name) {
    // nanobot writes null for optional texts and lists it leaves unset; a
    // number or a switch is never optional there (pydantic refuses null).
    bool typed = spec.kind == key_kind::integer
                 || spec.kind == key_kind::number
                 || spec.kind == key_kind::seconds
                 || spec.kind == key_kind::boolean;
    if (value.is_null() && !typed)
      return std::nullopt;
    if (value.is_null()) {
      field_value unused;
      auto bad = check_value(spec, value, unused);
      return fail(shown, shown,
                  (bad ? bad->reason : std::string{"null is not allowed"})
                    + " (remove the key to use the default)");
    }
    auto resolved = resolve(spec, value, shown);
    if (!resolved)
      return std::nullopt; // reported once the walk is complete
    field_value v;
    if (auto bad = check_value(spec, *resolved, v))
      return fail(shown, shown + bad->at, bad->reason);
    spec.apply(out_, name, v);
    return std::nullopt;
  }

  settings& out_;
  const env_lookup& env_;
  diagnostics& diag_;
  std::vector<std::pair<std::string, std::string>> missing_; // path, var
};

} // namespace

std::optional<config_error> apply_tree(const json& root, settings& out,
                                       const env_lookup& env,
                                       diagnostics& diag) {
  return walker{out, env, diag}.run(root);
}

} // namespace nb::config
