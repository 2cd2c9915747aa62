// The one base64 codec (mail bodies, Chromium's screenshots).
#include <doctest/doctest.h>

#include "actors/common/base64.hpp"

using nb::base64_decode;
using nb::base64_encode;

TEST_CASE("base64 round-trips every length and every byte") {
  CHECK(base64_encode("") == "");
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(base64_encode("foobar") == "Zm9vYmFy");
  std::string all;
  for (int c = 0; c < 256; ++c)
    all.push_back(static_cast<char>(c));
  for (size_t n = 0; n <= all.size(); n += 37) {
    auto part = all.substr(0, n);
    CHECK(base64_decode(base64_encode(part)) == part);
  }
}

TEST_CASE("base64 decoding skips MIME line breaks and takes missing padding") {
  CHECK(base64_decode("Zm9v\r\nYmFy") == std::string{"foobar"});
  CHECK(base64_decode("Zg") == std::string{"f"});
  CHECK(base64_decode(" Zm8= ") == std::string{"fo"});
}

TEST_CASE("base64 decoding refuses what is not base64") {
  CHECK_FALSE(base64_decode("Zm9v!"));
  CHECK_FALSE(base64_decode("Zg==Zg=="));   // data after the padding
  CHECK_FALSE(base64_decode("Z"));          // one stray symbol is no byte
}
