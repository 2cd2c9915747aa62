// The libcurl functions the Email channel calls, from libcurl.so.4 opened
// the first time a mail client starts (see actors/common/shared_library):
// a gateway without the Email channel never maps libcurl, GnuTLS, Kerberos,
// LDAP and the rest of what libcurl links.
#pragma once

#include <string>

#include <curl/curl.h>

namespace nb::email {

struct curl_library {
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

/// libcurl, opened and initialised (curl_global_init) once per process on
/// the first call; null with `error` naming the package when it is missing.
/// Opens a file on the first call: only from the channel's own threads.
const curl_library* load_curl(std::string& error);

} // namespace nb::email
