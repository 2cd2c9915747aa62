// Tools: a link's bytes, fetched for re-upload elsewhere (a chat platform
// that takes files, not links). Every hop passes the SSRF guard, the body
// is capped while it streams in, and a redirect may be refused by rule.
// Blocking: call it from a thread of one's own, never a scheduler thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "actors/tools/ssrf.hpp"

namespace nb {

/// What to allow while fetching.
struct link_download_rules {
  int64_t max_bytes = 20LL * 1024 * 1024; ///< a larger body is refused
  int max_redirects = 3;
  /// "" lets a redirect go, else why not; null = every redirect goes (each
  /// hop is still checked by the guard).
  std::function<std::string(const parsed_url& from, const parsed_url& to)>
    redirect_rule;
  int timeout_s = 120; ///< the whole exchange
};

/// The outcome: the bytes, or why not (naming the link).
struct link_download {
  std::string error;        ///< "" = `bytes` hold the whole body
  std::string bytes;
  std::string content_type; ///< "image/png", parameters dropped
  std::string file_name;    ///< the last element of the link's path ("" if none)
};

/// GETs `url` under `policy` and `rules`. Never throws.
link_download download_link(const std::string& url, const ssrf_policy& policy,
                            const link_download_rules& rules);

} // namespace nb
