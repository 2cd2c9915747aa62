// Pairing codes: format, reuse, expiry, approval, the file format.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "actors/channels/manager/pairing.hpp"

using namespace nb;

TEST_CASE("codes look like ABCD-EFGH and are reused while pending") {
  pairing_book book;
  std::mt19937_64 rng{7};
  auto a = book.request("telegram", "42", "42", 1000, rng);
  CHECK(a.code.size() == 9);
  CHECK(a.code[4] == '-');
  CHECK(normalise_pairing_code(a.code) == a.code);
  CHECK(a.expires_at == 1000 + pairing_ttl_s);
  CHECK(book.request("telegram", "42", "42", 1100, rng).code == a.code);
  CHECK(book.request("telegram", "43", "43", 1100, rng).code != a.code);
  CHECK(book.pending(1100).size() == 2);
}

TEST_CASE("approval takes any spelling and expired codes are refused") {
  pairing_book book;
  std::mt19937_64 rng{8};
  auto code = book.request("discord", "u1", "c1", 1000, rng).code;
  std::string lower;
  for (char c : code)
    if (c != '-')
      lower += static_cast<char>(std::tolower(c));
  auto done = book.approve(lower, 1200);
  REQUIRE(done);
  CHECK(done->sender_id == "u1");
  CHECK(done->chat_id == "c1");
  CHECK(book.is_approved("discord", "u1"));
  CHECK_FALSE(book.is_approved("telegram", "u1")); // per channel
  CHECK_FALSE(book.approve(code, 1200)); // used up

  auto late = book.request("discord", "u2", "c2", 1000, rng).code;
  CHECK_FALSE(book.approve(late, 1000 + pairing_ttl_s));
  CHECK_FALSE(book.is_approved("discord", "u2"));
  CHECK(normalise_pairing_code("ABC") == "");
  CHECK(normalise_pairing_code("ABCD-EFG!") == "");
}

TEST_CASE("the pairing file round trips and a corrupt one is set aside") {
  pairing_book book;
  std::mt19937_64 rng{9};
  auto code = book.request("slack", "U1", "D1", 1000, rng).code;
  book.request("slack", "U2", "D2", 1000, rng);
  REQUIRE(book.approve(code, 1001));
  auto copy = pairing_book::from_json(book.to_json());
  REQUIRE(copy);
  CHECK(copy->is_approved("slack", "U1"));
  CHECK(copy->pending(1001).size() == 1);
  CHECK_FALSE(pairing_book::from_json("[1,2"));

  char tmpl[] = "/tmp/nb-pairing-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  auto path = dir + "/pairing.json";
  CHECK(load_pairing_book(path).pending(0).empty()); // no file: empty
  std::ofstream{path} << "{not json";
  CHECK(load_pairing_book(path).pending(0).empty());
  CHECK(std::filesystem::exists(path + ".corrupt"));
  CHECK_FALSE(std::filesystem::exists(path));
  std::filesystem::remove_all(dir);
}
