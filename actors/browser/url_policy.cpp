#include "actors/browser/url_policy.hpp"

#include <algorithm>
#include <cctype>

#include "actors/common/strings.hpp"

namespace nb {

namespace {

std::string scheme_of(const std::string& url) {
  auto colon = url.find(':');
  if (colon == std::string::npos)
    return {};
  auto s = url.substr(0, colon);
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0])))
    return {};
  for (auto c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-'
        && c != '.')
      return {};
  return ascii_lower(s);
}

std::string check_http(const std::string& url, const ssrf_policy& policy) {
  parsed_url parsed;
  if (auto err = parse_url(url, parsed); !err.empty())
    return err;
  auto verdict = check_url_target(parsed, policy);
  return verdict.error;
}

} // namespace

std::string check_navigation(const std::string& url,
                             const ssrf_policy& policy) {
  auto scheme = scheme_of(url);
  if (scheme == "http" || scheme == "https")
    return check_http(url, policy);
  if (url == "about:blank")
    return {};
  if (scheme.empty())
    return "not a URL: \"" + url + "\" (give a full http:// or https:// URL)";
  return scheme + ": URLs are refused (only http and https pages)";
}

std::string check_subrequest(const std::string& url,
                             const ssrf_policy& policy) {
  auto scheme = scheme_of(url);
  if (scheme == "http" || scheme == "https")
    return check_http(url, policy);
  if (scheme == "data" || scheme == "blob" || url == "about:blank")
    return {};
  return scheme + ": requests are refused";
}

} // namespace nb
