// Libraries opened on demand (actors/common/shared_library): a real
// system library by its soname, and the error a user sees when one is
// missing.
#include <doctest/doctest.h>

#include <string>

#include "actors/common/shared_library.hpp"

using nb::library_spec;

TEST_CASE("a library that is installed opens and its functions bind") {
  // libz is mapped by every gateway (httplib's compression), so it is there.
  const library_spec zlib{"libz.so.1", "zlib1g", "the test"};
  std::string error;
  void* handle = nb::open_library(zlib, error);
  REQUIRE_MESSAGE(handle != nullptr, error);
  const char* (*version)() = nullptr;
  REQUIRE(nb::bind_function(handle, zlib, "zlibVersion", version, error));
  CHECK(std::string{version()}.rfind("1.", 0) == 0);
  CHECK(error.empty());
  SUBCASE("a function it does not have names the library and the function") {
    int (*missing)() = nullptr;
    CHECK_FALSE(
      nb::bind_function(handle, zlib, "nb_no_such_function", missing, error));
    CHECK_FALSE(static_cast<bool>(missing));
    CHECK(error.find("libz.so.1 has no function nb_no_such_function")
          != std::string::npos);
  }
}

TEST_CASE("a missing library's error names the feature and the package") {
  const library_spec absent{"libnb-absent.so.7", "libnb-absent7",
                            "the Email channel"};
  std::string error;
  CHECK(nb::open_library(absent, error) == nullptr);
  CHECK(error.find("the Email channel needs libnb-absent.so.7") == 0);
  CHECK(error.find("install the Debian package libnb-absent7")
        != std::string::npos);
  // dlopen's own reason follows, so a broken install can be told apart.
  CHECK(error.find("cannot open shared object file") != std::string::npos);
}
