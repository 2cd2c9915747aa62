// The SSRF guard's URL parser: a URL and a reference to follow from it
// (split at the first NUL), CIDR whitelist entries, the internal-address
// judgement of the host, and the full check with a resolver that answers
// the host itself (no DNS).
#include "actors/tools/ssrf.hpp"
#include "tests/fuzz/fuzz_input.hpp"

NB_FUZZ_ENTRY(ssrf_url) {
  auto [url_text, ref] = nb::fuzz::split(nb::fuzz::text(data, size));
  nb::cidr net;
  (void) nb::parse_cidr(url_text, net);
  (void) nb::internal_reason(url_text);
  nb::parsed_url url;
  if (!nb::parse_url(url_text, url).empty())
    return 0;
  (void) url.origin();
  (void) url.str();
  (void) nb::resolve_reference(url, ref);
  nb::ssrf_policy policy;
  policy.resolve = [](const std::string& host) {
    return std::vector<std::string>{host};
  };
  (void) nb::check_url_target(url, policy);
  return 0;
}
