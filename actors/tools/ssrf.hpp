// Tools: the SSRF guard. Every URL an agent-driven request goes to (web
// tools, MCP over HTTP) is parsed strictly, its host resolved once, and
// every resolved address checked against private, loopback, link-local,
// metadata and other internal ranges; the caller then connects to the
// validated address only, so a second DNS answer cannot redirect it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nb {

/// A parsed http(s) URL.
struct parsed_url {
  std::string scheme; ///< "http" or "https", lowercased
  std::string host;   ///< lowercased; IPv6 without brackets
  int port = 0;
  std::string target; ///< path and query, at least "/"
  bool ipv6_literal = false;
  /// scheme://host[:port] as httplib wants it (IPv6 in brackets).
  std::string origin() const;
  /// The whole URL without fragment.
  std::string str() const;
};

/// Parses `text` (spaces, quotes and backticks around it trimmed). Only
/// http and https with a host; no credentials; no IPv6 zone ids. Returns
/// "" or an error naming the problem.
std::string parse_url(const std::string& text, parsed_url& out);

/// Resolves `target` against `base` (absolute, protocol-relative "//h/p",
/// absolute path or relative path), as a browser follows a Location.
std::string resolve_reference(const parsed_url& base,
                              const std::string& target);

/// One IPv4 or IPv6 network.
struct cidr {
  uint8_t bytes[16] = {};
  int bits = 0;
  bool v4 = true;
};

/// Parses "10.0.0.0/8", "fd00::/8" or a bare address (a /32 or /128).
bool parse_cidr(const std::string& text, cidr& out);

/// The policy: tools.ssrfWhitelist networks (bad entries are skipped with a
/// warning at load time) and the resolver (tests inject one).
struct ssrf_policy {
  std::vector<cidr> whitelist;
  /// Host name to addresses ("1.2.3.4", "::1"); empty result = unresolvable.
  std::function<std::vector<std::string>(const std::string&)> resolve;
  /// tools.web.proxy: requests go through this HTTP proxy, which resolves
  /// host names itself; only literal addresses and internal names are
  /// checked here ("" = direct, every name resolved and pinned).
  std::string proxy;
};

/// Builds a policy with the system resolver from whitelist texts; invalid
/// entries are returned in `bad` and ignored.
ssrf_policy make_ssrf_policy(const std::vector<std::string>& whitelist,
                             std::vector<std::string>* bad = nullptr);

/// getaddrinfo, every address family, deduplicated.
std::vector<std::string> system_resolve(const std::string& host);

/// Why an address is internal ("loopback", "private network", ...), or ""
/// when it is public. IPv4-mapped, NAT64 and 6to4 IPv6 forms are judged by
/// the IPv4 address inside.
std::string internal_reason(const std::string& ip);

/// The outcome of checking a URL: the address to connect to, or an error.
struct ssrf_verdict {
  std::string error; ///< "" = allowed
  std::string ip;    ///< validated address to connect to
  bool ok() const {
    return error.empty();
  }
};

/// Checks `url` under `policy`: legacy numeric host notations and internal
/// names (localhost, *.local, *.internal, ...) refused, the name resolved
/// once, every answer checked (one internal answer refuses the whole set)
/// unless whitelisted; cloud metadata addresses need an exact whitelist
/// entry. Through a proxy a name is not resolved (`ip` stays "").
ssrf_verdict check_url_target(const parsed_url& url, const ssrf_policy& policy);

} // namespace nb
