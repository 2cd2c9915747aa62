// Config loading: read, parse, override, validate, cross-check.
#include "config/load.hpp"

#include <arpa/inet.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/inplace_save.hpp"
#include "config/keys.hpp"
#include "config/model_list.hpp"
#include "config/pipeline.hpp"
#include "config/posix_regex.hpp"
#include "config/proxy_url.hpp"

namespace nb {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::uintmax_t max_config_bytes = 16u << 20;

/// nlohmann's text minus the "last read: '…'" tail, which quotes the input
/// (a half-typed API key, say).
std::string parse_reason(const json::exception& e, const std::string& path) {
  std::string what = e.what();
  auto start = what.find("] ");
  what = start == what.npos ? what : what.substr(start + 2);
  if (auto cut = what.find("; last read"); cut != what.npos) {
    // Keep the "; expected <token>" tail: its token names are fixed.
    std::string expected;
    for (const char* token :
         {"string literal", "'['", "'{'", "']'", "'}'", "':'", "','",
          "end of input", "'[', '{', or a literal"}) {
      auto tail = std::string{"; expected "} + token;
      if (what.ends_with(tail))
        expected = tail;
    }
    what = what.substr(0, cut) + expected;
  }
  if (dynamic_cast<const json::parse_error*>(&e) == nullptr)
    what = "a number is out of range"; // out_of_range.406 quotes the number
  return "invalid JSON in " + path + ": " + what;
}

/// nanobot moved tools.exec.restrictToWorkspace up to tools.
void migrate_legacy(json& root, config::diagnostics& diag) {
  for (auto& [tkey, tools] : root.items()) {
    if (!config::key_matches(tkey, "tools") || !tools.is_object())
      continue;
    for (auto& [ekey, exec] : tools.items()) {
      if (!config::key_matches(ekey, "exec") || !exec.is_object())
        continue;
      for (const char* old : {"restrictToWorkspace", "restrict_to_workspace"}) {
        if (!exec.contains(old))
          continue;
        bool has_new = tools.contains("restrictToWorkspace")
                       || tools.contains("restrict_to_workspace");
        if (!has_new)
          tools["restrictToWorkspace"] = exec[old];
        diag.notices.push_back(tkey + "." + ekey + "." + old
                               + (has_new ? " is legacy and ignored"
                                          : " is legacy; moved to "
                                            "tools.restrictToWorkspace"));
        exec.erase(old);
      }
    }
  }
}

/// "10.0.0.0/8", "fd00::/8" or a bare address.
bool is_cidr(const std::string& text) {
  auto slash = text.find('/');
  auto ip = text.substr(0, slash);
  unsigned char buf[16];
  bool v4 = ::inet_pton(AF_INET, ip.c_str(), buf) == 1;
  if (!v4 && ::inet_pton(AF_INET6, ip.c_str(), buf) != 1)
    return false;
  if (slash == std::string::npos)
    return true;
  auto bits = text.substr(slash + 1);
  if (bits.empty() || bits.size() > 3
      || bits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  return std::stoi(bits) <= (v4 ? 32 : 128);
}

/// An exec pattern list entry that does not compile, as exec would compile
/// it (an error found at start-up, not at the first command).
std::optional<config_error> check_patterns(const std::vector<std::string>& ps,
                                           const std::string& key) {
  for (size_t i = 0; i < ps.size(); ++i) {
    posix_regex re{to_posix(ps[i]), REG_NOSUB};
    if (!re.ok())
      return config_error{key + "[" + std::to_string(i) + "]",
                          "'" + ps[i] + "' is not a valid regular expression ("
                            + re.error() + ")"};
  }
  return std::nullopt;
}

/// tools.exec's sandbox keys: known words and absolute bind paths.
std::optional<config_error> check_sandbox_keys(const exec_settings& e) {
  if (!e.sandbox.empty() && e.sandbox != "bwrap")
    return config_error{"tools.exec.sandbox",
                        "'" + e.sandbox + "' is not a sandbox this gateway "
                          "has: use \"bwrap\" or leave it empty"};
  if (e.network != "none" && e.network != "loopback-denied"
      && e.network != "host")
    return config_error{"tools.exec.network",
                        "'" + e.network + "' is not one of \"none\", "
                          "\"loopback-denied\", \"host\""};
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
    {"tools.exec.sandboxRoBinds", &e.sandbox_ro_binds},
    {"tools.exec.sandboxRwBinds", &e.sandbox_rw_binds}};
  for (auto& [key, list] : lists) {
    auto& binds = *list;
    for (size_t i = 0; i < binds.size(); ++i)
      if (binds[i].empty() || (binds[i][0] != '/' && binds[i][0] != '~'))
        return config_error{std::string{key} + "[" + std::to_string(i) + "]",
                            "'" + binds[i] + "' is not an absolute path"};
  }
  return std::nullopt;
}

/// A proxy URL the HTTP clients can use: http:// or socks5://
/// [user:pass@]host[:port].
std::optional<config_error> check_proxy(const std::string& url,
                                        const std::string& key) {
  if (url.empty() || parse_proxy_url(url))
    return std::nullopt;
  auto scheme = url.substr(0, url.find("://"));
  return config_error{key, scheme != url
                             ? "'" + scheme
                                 + "' proxies are not supported: use an "
                                   "http:// or socks5:// proxy"
                             : "not a proxy URL such as "
                               "http://127.0.0.1:3128 or "
                               "socks5://127.0.0.1:1080"};
}

/// providers.<name>: known words for apiType and thinkingStyle, proxies.
std::optional<config_error> check_provider_keys(const settings& s) {
  for (const auto& [name, p] : s.providers) {
    auto at = "providers." + name + ".";
    if (p.api_type != "auto" && p.api_type != "chat_completions"
        && p.api_type != "responses")
      return config_error{at + "apiType",
                          "'" + p.api_type
                            + "' is not one of \"auto\", "
                              "\"chat_completions\", \"responses\""};
    if (p.api_type != "auto" && name != "openai")
      return config_error{at + "apiType", "only providers.openai takes "
                                          "apiType; remove it here"};
    if (!p.thinking_style.empty() && p.thinking_style != "thinking_type"
        && p.thinking_style != "enable_thinking"
        && p.thinking_style != "reasoning_split")
      return config_error{at + "thinkingStyle",
                          "'" + p.thinking_style
                            + "' is not one of "
                              "\"thinking_type\", \"enable_thinking\", "
                              "\"reasoning_split\""};
    if (auto bad = check_proxy(p.proxy, at + "proxy"))
      return bad;
  }
  return check_proxy(s.tools.web.proxy, "tools.web.proxy");
}

/// Rules that span keys (REFERENCE §16 and RELIABILITY H9).
std::optional<config_error> cross_check(const settings& s,
                                        config::diagnostics& diag) {
  if (auto bad = check_patterns(s.tools.exec.deny_patterns,
                                "tools.exec.denyPatterns"))
    return bad;
  if (auto bad = check_patterns(s.tools.exec.allow_patterns,
                                "tools.exec.allowPatterns"))
    return bad;
  if (auto bad = check_sandbox_keys(s.tools.exec))
    return bad;
  if (auto bad = check_provider_keys(s))
    return bad;
  if (!is_loopback_host(s.api.host) && s.api.api_key.empty())
    return config_error{"api.host",
                        "a non-loopback address requires api.apiKey (set "
                        "api.apiKey, or bind api.host to 127.0.0.1)"};
  if (!is_loopback_host(s.gateway.host))
    diag.warnings.push_back("gateway.host is not a loopback address: "
                            "/health, /stats and /metrics are reachable from "
                            "the network without authentication");
  for (size_t i = 0; i < s.tools.ssrf_whitelist.size(); ++i)
    if (!is_cidr(s.tools.ssrf_whitelist[i]))
      diag.warnings.push_back("tools.ssrfWhitelist[" + std::to_string(i)
                              + "] is not an IP network such as "
                                "10.0.0.0/8; ignored");
  if (!s.tools.restrict_to_workspace && s.tools.exec.enable)
    diag.warnings.push_back("tools.restrictToWorkspace is off while "
                            "tools.exec is enabled: the agent can read and "
                            "write files outside its workspace");
  return std::nullopt;
}

load_result from_tree(json root, const std::string& path,
                      const env_lookup& env, config::diagnostics diag) {
  if (!root.is_object())
    return config_error{"", "expected an object at the top level of " + path
                              + ", found " + config::type_name(root)};
  config::apply_env_overrides(root, env, diag);
  migrate_legacy(root, diag);
  loaded_settings out;
  out.value.config_path = path;
  if (auto err = config::apply_tree(root, out.value, env, diag))
    return *err;
  if (auto err = config::read_mcp_servers(root, out.value, env))
    return *err;
  config::read_timeouts(env, out.value.timeouts, diag);
  if (auto err = config::apply_presets(out.value))
    return *err;
  if (auto err = config::read_agents(root, out.value, env, diag))
    return *err;
  if (auto err = cross_check(out.value, diag))
    return *err;
  out.warnings = std::move(diag.warnings);
  out.notices = std::move(diag.notices);
  return out;
}

constexpr std::string_view bom = "\xEF\xBB\xBF";

/// The first key or string value holding a byte-order mark (U+FEFF): it is
/// invisible in an editor, and turns "gateway" into an unknown key or an
/// API key into a wrong one. Returns the path, "" when there is none.
/// Deeper than 64 levels it stops looking (the walk refuses such trees).
std::string find_bom(const json& j, const std::string& at, int depth = 0) {
  if (depth > 64)
    return {};
  auto join = [&](const std::string& key) {
    return at.empty() ? key : at + "." + key;
  };
  if (j.is_object()) {
    for (auto& [key, value] : j.items()) {
      if (key.find(bom) != std::string::npos) {
        auto clean = key;
        auto shown = key;
        for (size_t p; (p = clean.find(bom)) != std::string::npos;)
          clean.erase(p, bom.size());
        for (size_t p; (p = shown.find(bom)) != std::string::npos;)
          shown.replace(p, bom.size(), "<U+FEFF>");
        // The rest of the key is shown only if it would be shown anyway.
        auto safe = config::display_key(clean);
        return join(safe == clean ? shown : safe);
      }
      if (auto hit = find_bom(value, join(key), depth + 1); !hit.empty())
        return hit;
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      if (auto hit = find_bom(j[i], at + "[" + std::to_string(i) + "]",
                              depth + 1);
          !hit.empty())
        return hit;
  } else if (j.is_string()
             && j.get_ref<const std::string&>().find(bom)
                  != std::string::npos) {
    return at;
  }
  return {};
}

load_result parse_impl(std::string_view text, const std::string& path,
                       const env_lookup& env) {
  if (text.substr(0, bom.size()) == bom)
    return config_error{"", path + " starts with a UTF-8 byte-order mark "
                              "(EF BB BF), which nanobot does not accept: "
                              "save the file as UTF-8 without BOM"};
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return config_error{"", parse_reason(e, path)};
  }
  if (auto at = find_bom(root, ""); !at.empty())
    return config_error{at, "contains an invisible byte-order mark (U+FEFF) "
                            "in its name or value; delete it"};
  return from_tree(std::move(root), path, env, {});
}

load_result load_impl(const std::string& path, const env_lookup& env) {
  // Where saves rewrite the file in place (a config dir that is an exec
  // workspace), it is read under their lock, never half rewritten, and a
  // save a crash interrupted is finished first (inplace_save.hpp).
  std::optional<std::string> guarded;
  if (config_saves_in_place(config_target(path))) {
    guarded = read_config_text(path);
    if (!guarded)
      return config_error{"", "cannot read " + path};
  }
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) {
    config::diagnostics diag;
    diag.notices.push_back("no config file at " + path
                           + "; using built-in defaults");
    return from_tree(json::object(), path, env, std::move(diag));
  }
  if (ec)
    return config_error{"", "cannot read " + path + ": " + ec.message()};
  if (fs::is_directory(status))
    return config_error{"", path + " is a directory, not a config file"};
  auto size = fs::file_size(path, ec);
  if (!ec && size > max_config_bytes)
    return config_error{"", path + " is larger than 16 MiB"};
  if (guarded)
    return guarded->size() > max_config_bytes
             ? load_result{config_error{"", path + " is larger than 16 MiB"}}
             : parse_impl(*guarded, path, env);
  std::ifstream in{path, std::ios::binary};
  std::ostringstream buf;
  buf << in.rdbuf();
  if (!in)
    return config_error{"", "cannot read " + path};
  return parse_impl(buf.str(), path, env);
}

} // namespace

std::string config_error::message() const {
  if (key_path.empty())
    return "config error: " + reason;
  return "config error at " + key_path + ": " + reason;
}

std::string default_config_path() {
  const char* home = std::getenv("HOME");
  std::string base = home != nullptr && *home != '\0' ? home : ".";
  return base + "/.nanobot/config.json";
}

load_result load_settings(const std::string& path, const env_lookup& env) {
  try {
    return load_impl(path, env);
  } catch (...) {
    // Nothing above should throw; if it does, still no value in the text.
    return config_error{"", "unexpected failure while loading " + path};
  }
}

load_result parse_settings(std::string_view json_text,
                           const std::string& path, const env_lookup& env) {
  try {
    return parse_impl(json_text, path, env);
  } catch (...) {
    return config_error{"", "unexpected failure while loading " + path};
  }
}

bool is_loopback_host(std::string_view host) {
  std::string h;
  for (char c : host)
    h += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (h.size() > 2 && h.front() == '[' && h.back() == ']')
    h = h.substr(1, h.size() - 2);
  if (h == "localhost")
    return true;
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6))
      return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

} // namespace nb
