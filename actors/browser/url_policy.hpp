// Browser: which URLs the browser may load. Navigations the model asks for
// and every request a page makes (scripts, images, XHR, redirects) pass the
// same SSRF guard as the web tools; local schemes (file:, chrome:,
// devtools:, ...) are refused outright.
#pragma once

#include <string>

#include "actors/tools/ssrf.hpp"

namespace nb {

/// Checks a URL the model asked to open: http(s) through the SSRF guard,
/// or about:blank. Returns "" or the reason it is refused.
std::string check_navigation(const std::string& url,
                             const ssrf_policy& policy);

/// Checks a request a page makes (Fetch.requestPaused): data: and blob:
/// stay inside the page and pass; http(s) goes through the SSRF guard;
/// everything else is refused. Returns "" or the reason.
std::string check_subrequest(const std::string& url,
                             const ssrf_policy& policy);

} // namespace nb
