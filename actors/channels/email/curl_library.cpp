#include "actors/channels/email/curl_library.hpp"

#include "actors/common/shared_library.hpp"

namespace nb::email {

namespace {

constexpr library_spec libcurl_spec{"libcurl.so.4", "libcurl4",
                                    "the Email channel"};

using loaded_curl = loaded_functions<curl_library>;

loaded_curl open_curl() {
  loaded_curl out;
  void* handle = open_library(libcurl_spec, out.error);
  if (handle == nullptr)
    return out;
  decltype(&::curl_global_init) global_init = nullptr;
  auto& f = out.functions;
  auto bind = [&](const char* name, auto*& fn) {
    return bind_function(handle, libcurl_spec, name, fn, out.error);
  };
  bool bound = bind("curl_global_init", global_init)
               && bind("curl_easy_init", f.easy_init)
               && bind("curl_easy_reset", f.easy_reset)
               && bind("curl_easy_setopt", f.easy_setopt)
               && bind("curl_easy_perform", f.easy_perform)
               && bind("curl_easy_strerror", f.easy_strerror)
               && bind("curl_easy_cleanup", f.easy_cleanup)
               && bind("curl_slist_append", f.slist_append)
               && bind("curl_slist_free_all", f.slist_free_all);
  // curl_global_init is not thread-safe: here it runs once, inside the
  // function-local static's initialisation, which C++ serialises.
  if (bound && global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    out.error = "the Email channel could not initialise libcurl";
  return out;
}

} // namespace

const curl_library* load_curl(std::string& error) {
  static const loaded_curl curl = open_curl();
  return curl.get(error);
}

} // namespace nb::email
