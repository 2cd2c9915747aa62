// The one UTF-8 checker.
#include <doctest/doctest.h>

#include <string>

#include "actors/common/utf8.hpp"

using nb::first_invalid_utf8;
using nb::utf8_sequence_length;

TEST_CASE("well-formed UTF-8 passes") {
  CHECK_FALSE(first_invalid_utf8(""));
  CHECK_FALSE(first_invalid_utf8("plain ascii"));
  CHECK_FALSE(first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  CHECK(utf8_sequence_length("\xf0\x9f\x98\x80", 0) == 4);
  CHECK(utf8_sequence_length("\xf4\x8f\xbf\xbf", 0) == 4); // U+10FFFF
}

TEST_CASE("each kind of ill-formed byte is found where it is") {
  CHECK(first_invalid_utf8("ab\xff") == 2u);
  CHECK(first_invalid_utf8("a\x80") == 1u);             // stray continuation
  CHECK(first_invalid_utf8("caf\xc3") == 3u);           // cut at the end
  CHECK(first_invalid_utf8("x\xc3(") == 1u);            // bad continuation
  CHECK(first_invalid_utf8("\xc0\xaf") == 0u);          // overlong '/'
  CHECK(first_invalid_utf8("\xe0\x80\xaf") == 0u);      // overlong, 3 bytes
  CHECK(first_invalid_utf8("ok\xed\xa0\x80") == 2u);    // a surrogate
  CHECK(first_invalid_utf8("\xf4\x90\x80\x80") == 0u);  // past U+10FFFF
  CHECK(first_invalid_utf8("\xf5\x80\x80\x80") == 0u);
}

TEST_CASE("cuts never split a character") {
  std::string s = "a\xc3\xa9\xe2\x82\xac"; // "aé€": 1 + 2 + 3 bytes
  CHECK(nb::utf8_head(s, 2) == "a");
  CHECK(nb::utf8_head(s, 3) == "a\xc3\xa9");
  CHECK(nb::utf8_head(s, 100) == s);
  CHECK(nb::utf8_tail(s, 2) == "");
  CHECK(nb::utf8_tail(s, 4) == "\xe2\x82\xac");
  CHECK(nb::utf8_tail(s, 5) == "\xc3\xa9\xe2\x82\xac");
}
