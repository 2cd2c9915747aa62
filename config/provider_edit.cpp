#include "config/provider_edit.hpp"

#include <cctype>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "config/keys.hpp"

namespace nb {

namespace {

using ojson = nlohmann::ordered_json;

/// "lmStudio", "lm-studio" and "lm_studio" are one provider name.
std::string loose(std::string_view s) {
  std::string out;
  for (unsigned char c : s)
    if (c != '-' && c != '_' && c != ' ')
      out += static_cast<char>(std::tolower(c));
  return out;
}

/// The member of `obj` spelled like `camel` in either case style, else a
/// new member named `camel`.
ojson& member(ojson& obj, const char* camel) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (config::key_matches(it.key(), camel))
      return *it;
  return obj[camel];
}

void erase_member(ojson& obj, const char* camel) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (config::key_matches(it.key(), camel)) {
      obj.erase(it);
      return;
    }
}

/// `obj.<camel>` as an object (created when missing or null).
std::variant<ojson*, config_error> section(ojson& obj, const char* camel,
                                           const std::string& at) {
  auto& m = member(obj, camel);
  if (m.is_null())
    m = ojson::object();
  if (!m.is_object())
    return config_error{at, "expected an object"};
  return &m;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64)
    return false;
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && c != '-')
      return false;
  return true;
}

} // namespace

std::variant<std::string, config_error>
apply_provider_setup(std::string_view current, const provider_setup& s) {
  if (!valid_name(s.provider))
    return config_error{"agents.defaults.provider",
                        "expected a provider name of letters, digits, '_' "
                        "or '-'"};
  if (s.model.empty())
    return config_error{"agents.defaults.model", "must not be empty"};
  ojson root = ojson::object();
  if (current.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    root = ojson::parse(current.begin(), current.end(), nullptr, false);
    if (root.is_discarded())
      return config_error{"", "the config file is not valid JSON; fix it "
                              "before saving from the WebUI"};
    if (!root.is_object())
      return config_error{"", "the config file must hold a JSON object"};
  }
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
    erase_member(*entry, "apiBase");
  return root.dump(2) + "\n";
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

write_result save_config_text(const std::string& path, std::string_view text) {
  std::error_code ec;
  std::string target = path;
  if (std::filesystem::is_symlink(path, ec)) {
    auto real = std::filesystem::canonical(path, ec);
    if (!ec)
      target = real.string();
  }
  return replace_file_atomic(target, text, 0600, existing_mode::replace);
}

} // namespace nb
