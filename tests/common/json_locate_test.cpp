// Naming the JSON field that holds a byte.
#include <doctest/doctest.h>

#include <string>

#include "actors/common/json_locate.hpp"

using nb::json_path_at;

namespace {

/// The path of the first 'X' in `text`.
std::string at_x(const std::string& text) {
  return json_path_at(text, text.find('X'));
}

} // namespace

TEST_CASE("values in objects and arrays are named by their path") {
  CHECK(at_x(R"({"a":"X"})") == "a");
  CHECK(at_x(R"({"a":1,"b":{"c":[1,2,"X"]}})") == "b.c[2]");
  CHECK(at_x(R"({"messages":[{"role":"user","content":"hiX"}]})")
        == "messages[0].content");
  CHECK(at_x(R"({"m":[{"c":[{"t":"a"},{"t":"X"}]}]})") == "m[0].c[1].t");
  CHECK(at_x(R"([1,[2,"X"]])") == "[1][1]");
}

TEST_CASE("keys escapes and the top level are told apart") {
  CHECK(at_x(R"({"a":{"kX":1}})") == "a key in a");
  CHECK(at_x(R"({"kX":1})") == "a key of the document");
  CHECK(at_x(R"({"a\"b":"X"})") == "a\\\"b");
  CHECK(at_x(R"("X")") == "the document");
  CHECK(json_path_at("", 0) == "the document");
}

TEST_CASE("broken text is read as far as it goes") {
  CHECK(at_x(R"({"a":[1,2,"X)") == "a[2]");
  CHECK(at_x(R"(}}]]{"a":"X")") == "a");
  CHECK(json_path_at(R"({"a":"b")", 1000) == "a");
}

TEST_CASE("an array's elements are found as they are written") {
  using nb::json_array_elements;
  auto els = json_array_elements(
    R"( [ {"a":[1,{"b":"],}"}]} , "x\"]" ,3, [[]] ,null] )");
  REQUIRE(els.size() == 5);
  CHECK(els[0] == R"({"a":[1,{"b":"],}"}]})");
  CHECK(els[1] == R"("x\"]")");
  CHECK(els[2] == "3");
  CHECK(els[3] == "[[]]");
  CHECK(els[4] == "null");
  CHECK(json_array_elements("[]").empty());
  CHECK(json_array_elements(" [ ] ").empty());
  CHECK(json_array_elements(R"({"a":1})").empty());
  // Cut short: nothing past the text is read.
  CHECK(json_array_elements(R"([{"a":"b)").empty());
  CHECK(json_array_elements(R"([1,"\)").size() == 1);
}
