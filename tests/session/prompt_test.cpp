// The system prompt and its cache.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "actors/session/prompt.hpp"

TEST_CASE("the system prompt follows edits of the bootstrap files") {
  char tmpl[] = "/tmp/nb-prompt-XXXXXX";
  std::string ws = mkdtemp(tmpl);
  nb::system_prompt_cache cache;
  auto first = cache.get(ws);
  CHECK(first.find(ws) != std::string::npos);
  CHECK(first.find("## USER.md") == std::string::npos);
  std::ofstream{ws + "/USER.md"} << "The user's name is Ada.\n";
  auto second = cache.get(ws);
  CHECK(second.find("The user's name is Ada.") != std::string::npos);
  CHECK(cache.get(ws) == second);
  std::ofstream{ws + "/USER.md"} << "The user's name is Grace, now.\n";
  CHECK(cache.get(ws).find("Grace") != std::string::npos);
  // Empty files are left out of the prompt.
  std::ofstream{ws + "/SOUL.md"} << "   \n";
  CHECK(cache.get(ws).find("## SOUL.md") == std::string::npos);
  std::filesystem::remove_all(ws);
}
