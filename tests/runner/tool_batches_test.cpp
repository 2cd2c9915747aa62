// The partition of one reply's tool calls into parallel and serial batches.
#include <doctest/doctest.h>

#include "actors/runner/tool_batches.hpp"

namespace {

std::vector<nb::tool_spec> specs() {
  return {{"read_file", "", "{}", true, false},
          {"list_dir", "", "{}", true, false},
          {"exec", "", "{}", false, true},
          {"write_file", "", "{}", false, false},
          {"web_search", "", "{}", true, true}};
}

std::vector<nb::tool_call> calls(std::initializer_list<const char*> names) {
  std::vector<nb::tool_call> out;
  for (auto n : names)
    out.push_back({"id", n, "{}"});
  return out;
}

} // namespace

TEST_CASE("consecutive read-only calls form one parallel batch") {
  auto b = nb::partition_tool_calls(
    calls({"read_file", "list_dir", "exec", "read_file", "read_file"}), specs());
  REQUIRE(b.size() == 3);
  CHECK(b[0].parallel);
  CHECK(b[0].calls == std::vector<size_t>{0, 1});
  CHECK_FALSE(b[1].parallel);
  CHECK(b[1].calls == std::vector<size_t>{2});
  CHECK(b[2].calls == std::vector<size_t>{3, 4});
}

TEST_CASE("writes and exclusive read-only tools run alone") {
  auto b = nb::partition_tool_calls(
    calls({"write_file", "web_search", "web_search"}), specs());
  REQUIRE(b.size() == 3);
  for (auto& x : b) {
    CHECK_FALSE(x.parallel);
    CHECK(x.calls.size() == 1);
  }
}

TEST_CASE("unknown tools are never run in parallel") {
  auto b = nb::partition_tool_calls(calls({"read_file", "nope", "read_file"}),
                                    specs());
  REQUIRE(b.size() == 3);
  CHECK(b[1].calls == std::vector<size_t>{1});
  CHECK_FALSE(b[1].parallel);
  CHECK(nb::partition_tool_calls({}, specs()).empty());
}
