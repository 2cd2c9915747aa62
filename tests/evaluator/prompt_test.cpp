// The evaluator's system prompt: built-in, workspace override, and the
// override's failure modes (empty, not UTF-8, too long).
#include <doctest/doctest.h>

#include <string>

#include "actors/evaluator/evaluator_prompt.hpp"
#include "tests/support/scratch_dir.hpp"

namespace {

using namespace nb;
using nb::test::scratch_dir;
using nb::test::write_all;

std::string override_path(const scratch_dir& ws) {
  return ws.at(evaluator_prompt_rel_path);
}

} // namespace

TEST_CASE("without an override the built-in prompt is used") {
  scratch_dir ws;
  auto p = resolve_evaluator_prompt(ws.path);
  CHECK_FALSE(p.custom);
  CHECK(p.text == default_evaluator_prompt());
  CHECK(p.warning.empty());
  CHECK(p.text.find("evaluate_notification") != std::string::npos);
}

TEST_CASE("a workspace override wins with its trailing whitespace stripped") {
  scratch_dir ws;
  write_all(override_path(ws), "Only notify about rain.\n\n");
  auto p = resolve_evaluator_prompt(ws.path);
  CHECK(p.custom);
  CHECK(p.text == "Only notify about rain.");
}

TEST_CASE("an empty or whitespace-only override falls back to the built-in") {
  scratch_dir ws;
  write_all(override_path(ws), "");
  CHECK_FALSE(resolve_evaluator_prompt(ws.path).custom);
  write_all(override_path(ws), "  \n\t\n");
  auto p = resolve_evaluator_prompt(ws.path);
  CHECK_FALSE(p.custom);
  CHECK(p.text == default_evaluator_prompt());
}

TEST_CASE("a UTF-16 override falls back to the built-in with a warning") {
  scratch_dir ws;
  // "Hi" in UTF-16 LE with a byte-order mark.
  write_all(override_path(ws), std::string{"\xFF\xFEH\0i\0", 6});
  auto p = resolve_evaluator_prompt(ws.path);
  CHECK_FALSE(p.custom);
  CHECK(p.text == default_evaluator_prompt());
  CHECK(p.warning.find("not UTF-8") != std::string::npos);
}

TEST_CASE("an oversized override is cut at 32000 characters with a marker") {
  scratch_dir ws;
  write_all(override_path(ws), std::string(32001, 'x'));
  auto p = resolve_evaluator_prompt(ws.path);
  CHECK(p.custom);
  CHECK(p.text == std::string(32000, 'x') + "\n... (truncated)");
  CHECK_FALSE(p.warning.empty());
  // Exactly at the limit: kept whole.
  write_all(override_path(ws), std::string(32000, 'y'));
  p = resolve_evaluator_prompt(ws.path);
  CHECK(p.text == std::string(32000, 'y'));
  CHECK(p.warning.empty());
}

TEST_CASE("the limit counts characters and never splits one") {
  // 32000 two-byte characters fit; one more is cut on a boundary.
  std::string e_acute = "\xC3\xA9";
  std::string text;
  for (int i = 0; i < 32001; ++i)
    text += e_acute;
  CHECK(truncate_chars(text, evaluator_prompt_max_chars));
  CHECK(text.size() == 64000 + std::string{prompt_truncation_marker}.size());
  CHECK(is_utf8_text(text));
}

TEST_CASE("UTF-8 validation rejects malformed sequences") {
  CHECK(is_utf8_text("plain ascii"));
  CHECK(is_utf8_text("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  CHECK_FALSE(is_utf8_text("\xC3"));             // cut short
  CHECK_FALSE(is_utf8_text("\xC0\xAF"));         // overlong
  CHECK_FALSE(is_utf8_text("\xED\xA0\x80"));     // a surrogate
  CHECK_FALSE(is_utf8_text("\xF4\x90\x80\x80")); // above U+10FFFF
  CHECK_FALSE(is_utf8_text(std::string{"a\0b", 3}));
}
