# Third-party dependencies, all from Debian bookworm packages (see README).
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(spdlog 1.10 REQUIRED)
find_package(doctest 2.4 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(PkgConfig REQUIRED)

# cpp-httplib ships only a .pc file; its Cflags (OpenSSL/zlib/brotli support)
# must reach every TU that includes httplib.h or the ABI of the .so mismatches.
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib>=0.11)
add_library(httplib::httplib ALIAS PkgConfig::HTTPLIB)

# Line editing and history for `nanobot agent` (libedit-dev): BSD-licensed,
# unlike GNU readline (GPL), so using it keeps our licence choice open. Only
# its headers: the library is opened when first used (actors/cli).
pkg_check_modules(LIBEDIT REQUIRED IMPORTED_TARGET libedit)

# Debian's libcaf-dev 0.17.6 ships neither a CMake package nor a .pc file.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
foreach(_c core io openssl)
  find_library(CAF_${_c}_LIBRARY NAMES caf_${_c} REQUIRED)
  add_library(CAF::${_c} SHARED IMPORTED)
  set_target_properties(CAF::${_c} PROPERTIES
    IMPORTED_LOCATION "${CAF_${_c}_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}")
endforeach()
set_property(TARGET CAF::core APPEND PROPERTY INTERFACE_LINK_LIBRARIES Threads::Threads)
set_property(TARGET CAF::io APPEND PROPERTY INTERFACE_LINK_LIBRARIES CAF::core)
set_property(TARGET CAF::openssl APPEND PROPERTY INTERFACE_LINK_LIBRARIES CAF::io OpenSSL::SSL)

# WebSocket clients (Discord Gateway, Slack Socket Mode): Boost.Beast,
# header-only, TLS through OpenSSL.
find_package(Boost 1.74 REQUIRED CONFIG)
# Email: IMAP and SMTP through libcurl.
find_package(CURL REQUIRED)
