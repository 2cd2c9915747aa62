// /evaluator-prompt [init] on a real workspace directory.
#include <doctest/doctest.h>

#include "actors/evaluator/evaluator_prompt.hpp"
#include "actors/evaluator/prompt_command.hpp"
#include "tests/support/scratch_dir.hpp"

namespace {

using namespace nb;
using nb::test::read_all;
using nb::test::scratch_dir;
using nb::test::write_all;

} // namespace

TEST_CASE("evaluator-prompt reports the default with a relative path") {
  scratch_dir ws;
  auto out = evaluator_prompt_command(ws.path, "");
  CHECK(out.find("nanobot default") != std::string::npos);
  CHECK(out.find("`prompts/evaluator.md`") != std::string::npos);
  CHECK(out.find("/evaluator-prompt init") != std::string::npos);
  CHECK(out.find("evaluate_notification") != std::string::npos);
  CHECK(out.find(ws.path) == std::string::npos);
}

TEST_CASE("evaluator-prompt init copies the default and never overwrites") {
  scratch_dir ws;
  auto path = ws.at("prompts/evaluator.md");
  auto out = evaluator_prompt_command(ws.path, "init");
  CHECK(out.find("evaluate_notification") != std::string::npos);
  CHECK(read_all(path) == default_evaluator_prompt() + "\n");
  CHECK(evaluator_prompt_command(ws.path, "").find("custom for this workspace")
        != std::string::npos);
  write_all(path, "my own gate\n");
  CHECK(evaluator_prompt_command(ws.path, "init").find("already exists")
        != std::string::npos);
  CHECK(read_all(path) == "my own gate\n");
}

TEST_CASE("evaluator-prompt init replaces an empty file") {
  scratch_dir ws;
  auto path = ws.at("prompts/evaluator.md");
  write_all(path, "  \n");
  evaluator_prompt_command(ws.path, "init");
  CHECK(read_all(path) == default_evaluator_prompt() + "\n");
}

TEST_CASE("evaluator-prompt keeps an undecodable file byte for byte") {
  scratch_dir ws;
  auto path = ws.at("prompts/evaluator.md");
  std::string utf16{"\xFF\xFEH\0i\0", 6};
  write_all(path, utf16);
  CHECK(evaluator_prompt_command(ws.path, "").find("nanobot default")
        != std::string::npos);
  CHECK(evaluator_prompt_command(ws.path, "init").find("already exists")
        != std::string::npos);
  CHECK(read_all(path) == utf16);
}

TEST_CASE("evaluator-prompt refuses unknown arguments") {
  scratch_dir ws;
  CHECK(evaluator_prompt_command(ws.path, "reset")
        == "Usage: /evaluator-prompt [init]");
}
