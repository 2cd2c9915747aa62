#include "actors/channels/email/curl_library.hpp"

#include "actors/common/shared_library.hpp"

namespace nb::email {

namespace {

constexpr library_spec libcurl_spec{"libcurl.so.4", "libcurl4",
                                    "the Email channel"};

} // namespace

const curl_library* load_curl(std::string& error) {
  static const auto curl = open_functions<curl_library>(
    libcurl_spec, [](curl_library& f, auto bind) -> std::string {
      decltype(&::curl_global_init) global_init = nullptr;
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
        return "the Email channel could not initialise libcurl";
      return {};
    });
  return curl.get(error);
}

} // namespace nb::email
