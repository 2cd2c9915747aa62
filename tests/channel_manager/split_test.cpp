// Splitting long replies at a platform's limit.
#include <doctest/doctest.h>

#include "actors/channels/manager/options.hpp"
#include "actors/channels/manager/split.hpp"

using nb::split_message;

namespace {

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (char c : s)
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

} // namespace

TEST_CASE("a text within the limit stays one piece") {
  CHECK(split_message("hello", 10) == std::vector<std::string>{"hello"});
  CHECK(split_message("", 10) == std::vector<std::string>{""});
  CHECK(split_message(std::string(5000, 'x'), 0).size() == 1);
}

TEST_CASE("long texts split at paragraph then line then space") {
  std::string para = std::string(60, 'a') + "\n\n" + std::string(60, 'b');
  CHECK(split_message(para, 100)
        == std::vector<std::string>{std::string(60, 'a'), std::string(60, 'b')});
  std::string lines = std::string(70, 'a') + "\n" + std::string(70, 'b');
  CHECK(split_message(lines, 100)
        == std::vector<std::string>{std::string(70, 'a'), std::string(70, 'b')});
  std::string words;
  for (int i = 0; i < 300; ++i)
    words += (i ? " word" : "word") + std::to_string(i);
  auto pieces = split_message(words, 100);
  CHECK(pieces.size() > 10);
  std::string joined;
  for (const auto& p : pieces) {
    CHECK(code_points(p) <= 100);
    CHECK(p.front() != ' ');
    joined += (joined.empty() ? "" : " ") + p;
  }
  CHECK(joined == words); // only the cut spaces went, and they came back
}

TEST_CASE("a text without spaces is cut hard and never inside UTF-8") {
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += "\xC3\xA9"; // é, two bytes
  auto pieces = split_message(text, 2000);
  REQUIRE(pieces.size() == 3);
  CHECK(code_points(pieces[0]) == 2000);
  CHECK(code_points(pieces[2]) == 1000);
  std::string joined;
  for (const auto& p : pieces) {
    CHECK((static_cast<unsigned char>(p[0]) & 0xC0) != 0x80);
    joined += p;
  }
  CHECK(joined == text);
}

TEST_CASE("each platform has its own limit") {
  CHECK(nb::platform_limit("discord") == 2000);
  CHECK(nb::platform_limit("telegram") == 4096);
  CHECK(nb::platform_limit("websocket") == 0);
  auto pieces = split_message(std::string(4500, 'z'), nb::platform_limit("discord"));
  CHECK(pieces.size() == 3);
}
