#include "actors/tools/link_download.hpp"

#include "actors/common/strings.hpp"
#include "actors/tools/http_fetch.hpp"

namespace nb {

namespace {

/// "report.pdf" for "https://h/a/report.pdf?x=1"; "" for "https://h/".
std::string link_file_name(const std::string& url) {
  parsed_url u;
  if (!parse_url(url, u).empty())
    return "";
  auto path = u.target.substr(0, u.target.find_first_of("?#"));
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

link_download download_link(const std::string& url, const ssrf_policy& policy,
                            const link_download_rules& rules) {
  link_download out;
  http_request req;
  req.url = url;
  req.max_redirects = rules.max_redirects;
  req.redirect_rule = rules.redirect_rule;
  req.timeout_s = rules.timeout_s;
  // One byte over the cap tells "too large" from "exactly the cap".
  req.max_bytes = static_cast<size_t>(rules.max_bytes) + 1;
  auto r = http_send(req, policy);
  auto fail = [&](const std::string& why) {
    out.error = url + ": " + why;
    return out;
  };
  if (!r.error.empty())
    return fail(r.blocked ? "refused: " + r.error : r.error);
  if (r.status < 200 || r.status >= 300)
    return fail("HTTP status " + std::to_string(r.status));
  if (r.truncated || r.body.size() > static_cast<size_t>(rules.max_bytes))
    return fail("larger than " + std::to_string(rules.max_bytes) + " bytes");
  if (r.body.empty())
    return fail("the body is empty");
  out.bytes = std::move(r.body);
  out.content_type =
    ascii_lower(trim_space(r.content_type.substr(0, r.content_type.find(';'))));
  out.file_name = link_file_name(url);
  return out;
}

} // namespace nb
