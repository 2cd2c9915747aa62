#include "actors/tools/ssrf.hpp"
#include "actors/common/strings.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

namespace nb {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size()
         && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// A host made only of numeric parts (decimal, 0x hex, 0-octal) that is not
// a canonical dotted quad: inet_aton would accept it, browsers too, and it
// hides an address from simple checks ("2130706433", "0x7f.1", "127.1").
bool legacy_numeric(const std::string& host) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (true) {
    auto dot = host.find('.', i);
    parts.push_back(host.substr(i, dot == std::string::npos ? dot : dot - i));
    if (dot == std::string::npos)
      break;
    i = dot + 1;
  }
  bool numeric = std::all_of(parts.begin(), parts.end(), [](auto& p) {
    if (p.size() > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
      return std::all_of(p.begin() + 2, p.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c));
      });
    return all_digits(p);
  });
  if (!numeric)
    return false;
  if (parts.size() != 4)
    return true;
  for (auto& p : parts)
    if (!all_digits(p) || (p.size() > 1 && p[0] == '0') || p.size() > 3
        || std::stoi(p) > 255)
      return true;
  return false;
}

bool internal_name(const std::string& host) {
  if (host == "localhost" || host.find('.') == std::string::npos)
    return true;
  for (auto tail : {".localhost", ".local", ".internal", ".localdomain",
                    ".home.arpa", ".svc", ".lan", ".intranet", ".corp"})
    if (ends_with(host, tail))
      return true;
  return false;
}

bool in_cidr(const uint8_t* addr, bool v4, const cidr& net) {
  if (net.v4 != v4)
    return false;
  int full = net.bits / 8;
  if (std::memcmp(addr, net.bytes, static_cast<size_t>(full)) != 0)
    return false;
  int rest = net.bits % 8;
  if (rest == 0)
    return true;
  uint8_t mask = static_cast<uint8_t>(0xFF << (8 - rest));
  return (addr[full] & mask) == (net.bytes[full] & mask);
}

std::string v4_reason(const uint8_t* a) {
  if (a[0] == 0)
    return "unspecified address";
  if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xF0) == 16)
      || (a[0] == 192 && a[1] == 168))
    return "private network";
  if (a[0] == 127)
    return "loopback";
  if (a[0] == 169 && a[1] == 254)
    return "link-local / cloud metadata";
  if (a[0] == 100 && (a[1] & 0xC0) == 64)
    return "carrier-grade NAT";
  if (a[0] == 192 && a[1] == 0 && a[2] == 0)
    return "IETF protocol assignment";
  if (a[0] == 198 && (a[1] & 0xFE) == 18)
    return "benchmarking network";
  if (a[0] >= 224 && a[0] < 240)
    return "multicast";
  if (a[0] >= 240)
    return "reserved";
  return {};
}

bool parse_ip(const std::string& ip, uint8_t* out, bool& v4) {
  if (::inet_pton(AF_INET, ip.c_str(), out) == 1) {
    v4 = true;
    return true;
  }
  if (::inet_pton(AF_INET6, ip.c_str(), out) == 1) {
    v4 = false;
    return true;
  }
  return false;
}

// The IPv4 address an IPv6 address carries (mapped, compatible, NAT64,
// 6to4), or false.
bool embedded_v4(const uint8_t* a, uint8_t* v4) {
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  static const uint8_t zero[12] = {};
  static const uint8_t nat64[12] = {0, 0x64, 0xFF, 0x9B};
  if (std::memcmp(a, mapped, 12) == 0 || std::memcmp(a, zero, 12) == 0
      || std::memcmp(a, nat64, 12) == 0) {
    std::memcpy(v4, a + 12, 4);
    return true;
  }
  if (a[0] == 0x20 && a[1] == 0x02) {
    std::memcpy(v4, a + 2, 4);
    return true;
  }
  return false;
}

bool is_metadata(const std::string& ip) {
  return ip == "169.254.169.254" || ip == "fd00:ec2::254"
         || ip == "100.100.100.200" || ip == "169.254.170.2";
}

bool exact_whitelisted(const std::string& ip, const ssrf_policy& p) {
  uint8_t a[16];
  bool v4;
  if (!parse_ip(ip, a, v4))
    return false;
  for (auto& net : p.whitelist)
    if (net.bits == (v4 ? 32 : 128) && in_cidr(a, v4, net))
      return true;
  return false;
}

bool whitelisted(const std::string& ip, const ssrf_policy& p) {
  uint8_t a[16];
  bool v4;
  if (!parse_ip(ip, a, v4))
    return false;
  for (auto& net : p.whitelist)
    if (in_cidr(a, v4, net))
      return true;
  // A mapped address is also checked as the IPv4 address it is.
  uint8_t inner[4];
  if (!v4 && embedded_v4(a, inner))
    for (auto& net : p.whitelist)
      if (in_cidr(inner, true, net))
        return true;
  return false;
}

} // namespace

std::string parsed_url::origin() const {
  auto h = ipv6_literal ? "[" + host + "]" : host;
  bool dflt = (scheme == "http" && port == 80)
              || (scheme == "https" && port == 443);
  return scheme + "://" + h + (dflt ? "" : ":" + std::to_string(port));
}

std::string parsed_url::str() const {
  return origin() + target;
}

std::string parse_url(const std::string& text, parsed_url& out) {
  auto b = text.find_first_not_of(" \t\r\n`'\"<>");
  auto e = text.find_last_not_of(" \t\r\n`'\"<>");
  if (b == std::string::npos)
    return "URL is empty";
  auto url = text.substr(b, e - b + 1);
  if (url.size() > 8192)
    return "URL is too long";
  for (char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F || c == '\\')
      return "URL contains spaces, control characters or backslashes";
  auto colon = url.find("://");
  if (colon == std::string::npos)
    return "URL must start with http:// or https://";
  out = {};
  out.scheme = ascii_lower(url.substr(0, colon));
  if (out.scheme != "http" && out.scheme != "https")
    return "only http and https URLs are allowed (got " + out.scheme + ":)";
  auto rest = url.substr(colon + 3);
  auto end = rest.find_first_of("/?#");
  auto authority = rest.substr(0, end);
  std::string tail = end == std::string::npos ? "" : rest.substr(end);
  if (auto hash = tail.find('#'); hash != std::string::npos)
    tail.erase(hash);
  if (authority.find('@') != std::string::npos)
    return "URLs with credentials (user:password@) are not allowed";
  std::string port_text;
  if (!authority.empty() && authority[0] == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos)
      return "unterminated IPv6 address in URL";
    out.host = ascii_lower(authority.substr(1, close - 1));
    out.ipv6_literal = true;
    if (out.host.find('%') != std::string::npos)
      return "IPv6 zone ids are not allowed in URLs";
    auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':')
        return "malformed host in URL";
      port_text = after.substr(1);
    }
    uint8_t tmp[16];
    if (::inet_pton(AF_INET6, out.host.c_str(), tmp) != 1)
      return "malformed IPv6 address in URL";
  } else {
    auto pc = authority.rfind(':');
    out.host = ascii_lower(authority.substr(0, pc));
    if (pc != std::string::npos)
      port_text = authority.substr(pc + 1);
    while (!out.host.empty() && out.host.back() == '.')
      out.host.pop_back();
    for (char c : out.host)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-'
            || c == '.' || c == '_'))
        return "URL host contains invalid characters";
  }
  if (out.host.empty())
    return "URL has no host";
  out.port = out.scheme == "https" ? 443 : 80;
  if (!port_text.empty()) {
    if (!all_digits(port_text) || port_text.size() > 5
        || std::stoi(port_text) < 1 || std::stoi(port_text) > 65535)
      return "URL port is not a number from 1 to 65535";
    out.port = std::stoi(port_text);
  }
  out.target = tail.empty() || tail[0] != '/' ? "/" + tail : tail;
  return {};
}

std::string resolve_reference(const parsed_url& base,
                              const std::string& target) {
  if (target.find("://") != std::string::npos)
    return target;
  if (target.rfind("//", 0) == 0)
    return base.scheme + ":" + target;
  if (!target.empty() && target[0] == '/')
    return base.origin() + target;
  auto path = base.target.substr(0, base.target.find('?'));
  if (!target.empty() && target[0] == '?')
    return base.origin() + path + target;
  return base.origin() + path.substr(0, path.rfind('/') + 1) + target;
}

bool parse_cidr(const std::string& text, cidr& out) {
  auto slash = text.find('/');
  auto ip = text.substr(0, slash);
  out = {};
  if (!parse_ip(ip, out.bytes, out.v4))
    return false;
  int max = out.v4 ? 32 : 128;
  if (slash == std::string::npos) {
    out.bits = max;
    return true;
  }
  auto bits = text.substr(slash + 1);
  if (!all_digits(bits) || bits.size() > 3 || std::stoi(bits) > max)
    return false;
  out.bits = std::stoi(bits);
  return true;
}

std::vector<std::string> system_resolve(const std::string& host) {
  std::vector<std::string> out;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0)
    return out;
  for (auto* p = res; p; p = p->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {};
    if (p->ai_family == AF_INET)
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(p->ai_addr)->sin_addr,
                  buf, sizeof buf);
    else if (p->ai_family == AF_INET6)
      ::inet_ntop(AF_INET6,
                  &reinterpret_cast<sockaddr_in6*>(p->ai_addr)->sin6_addr, buf,
                  sizeof buf);
    else
      continue;
    if (std::find(out.begin(), out.end(), buf) == out.end())
      out.emplace_back(buf);
  }
  ::freeaddrinfo(res);
  return out;
}

ssrf_policy make_ssrf_policy(const std::vector<std::string>& whitelist,
                             std::vector<std::string>* bad) {
  ssrf_policy p;
  for (auto& w : whitelist) {
    cidr c;
    if (parse_cidr(w, c))
      p.whitelist.push_back(c);
    else if (bad)
      bad->push_back(w);
  }
  p.resolve = system_resolve;
  return p;
}

std::string internal_reason(const std::string& ip) {
  uint8_t a[16];
  bool v4;
  if (!parse_ip(ip, a, v4))
    return "not an IP address";
  if (v4)
    return v4_reason(a);
  static const uint8_t zero[16] = {};
  if (std::memcmp(a, zero, 16) == 0)
    return "unspecified address";
  uint8_t inner[4];
  if (embedded_v4(a, inner)) {
    auto r = v4_reason(inner);
    return r.empty() ? r : r + " (inside an IPv6 address)";
  }
  if ((a[0] & 0xFE) == 0xFC)
    return "unique local address";
  if (a[0] == 0xFE && (a[1] & 0xC0) == 0x80)
    return "link-local";
  if (a[0] == 0xFE && (a[1] & 0xC0) == 0xC0)
    return "site-local";
  if (a[0] == 0xFF)
    return "multicast";
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0)
    return "Teredo tunnel";
  // 2001:db8::/32 documentation, 100::/64 discard.
  if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
    return "documentation range";
  if (a[0] == 0x01 && a[1] == 0 && std::memcmp(a + 2, zero, 6) == 0)
    return "discard range";
  return {};
}

ssrf_verdict check_url_target(const parsed_url& url,
                              const ssrf_policy& policy) {
  ssrf_verdict v;
  auto blocked = [&](const std::string& why) {
    v.error = "URL " + url.origin() + " is blocked: " + why
              + ". Internal and private addresses are off limits to the "
                "agent (tools.ssrfWhitelist opens chosen networks).";
    v.ip.clear();
    return v;
  };
  std::vector<std::string> addrs;
  uint8_t tmp[16];
  bool literal = url.ipv6_literal
                 || ::inet_pton(AF_INET, url.host.c_str(), tmp) == 1;
  if (literal && !url.ipv6_literal && legacy_numeric(url.host))
    return blocked("legacy numeric IPv4 notation");
  if (!literal && legacy_numeric(url.host))
    return blocked("legacy numeric IPv4 notation");
  bool reserved_name = !literal && internal_name(url.host);
  if (literal) {
    addrs.push_back(url.host);
  } else if (!policy.proxy.empty()) {
    if (reserved_name)
      return blocked("internal host name");
    return v; // the proxy resolves it
  } else {
    if (!policy.resolve)
      return blocked("no resolver");
    addrs = policy.resolve(url.host);
    if (addrs.empty())
      return blocked("the host name does not resolve");
  }
  for (auto& ip : addrs) {
    if (is_metadata(ip) && !exact_whitelisted(ip, policy))
      return blocked("cloud metadata address " + ip);
    auto reason = internal_reason(ip);
    if (reserved_name && reason.empty())
      reason = "internal host name";
    if (!reason.empty() && !whitelisted(ip, policy))
      return blocked(reason + " (" + ip + ")");
  }
  v.ip = addrs.front();
  return v;
}

} // namespace nb
