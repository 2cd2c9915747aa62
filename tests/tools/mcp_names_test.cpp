// How MCP tools are named and how their schemas are made fit for
// OpenAI-style function calling; the tools/call result text.
#include <doctest/doctest.h>

#include "actors/tools/mcp_names.hpp"
#include "actors/tools/mcp_server.hpp"

using namespace nb;
using nlohmann::json;

TEST_CASE("mcp tool names are sanitised and at most 64 characters") {
  CHECK(mcp_tool_name("fs", "read_file") == "mcp_fs_read_file");
  CHECK(mcp_tool_name("my server", "get.thing/x") == "mcp_my_server_get_thing_x");
  CHECK(mcp_tool_name("a__b", "__c") == "mcp_a_b_c");
  CHECK(mcp_tool_name("everything", "get-sum") == "mcp_everything_get-sum");
  auto long_name = mcp_tool_name(std::string(40, 's'), std::string(40, 't'));
  CHECK(long_name.size() == 64);
  CHECK(long_name.substr(0, 55) == ("mcp_" + std::string(40, 's') + "_"
                                    + std::string(40, 't')).substr(0, 55));
  CHECK(long_name[55] == '_');
  // Different long names stay different.
  CHECK(long_name != mcp_tool_name(std::string(40, 's'), std::string(41, 't')));
}

TEST_CASE("mcp schemas get refs inlined and nullable unions simplified") {
  auto in = json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "$defs": {"Point": {"type": "object",
                        "properties": {"x": {"type": "number"}}}},
    "properties": {
      "at": {"$ref": "#/$defs/Point"},
      "label": {"anyOf": [{"type": "string"}, {"type": "null"}],
                "description": "optional"}
    },
    "required": ["at"]
  })");
  auto out = normalize_schema(in);
  CHECK_FALSE(out.contains("$defs"));
  CHECK_FALSE(out.contains("$schema"));
  CHECK(out["properties"]["at"]["properties"]["x"]["type"] == "number");
  CHECK(out["properties"]["label"]["type"] == json::array({"string", "null"}));
  CHECK(out["properties"]["label"]["description"] == "optional");
  CHECK(out["required"] == json::array({"at"}));
  auto empty = normalize_schema(json::object());
  CHECK(empty["type"] == "object");
  CHECK(empty["properties"].is_object());
  auto loop = json::parse(R"({"type":"object","definitions":{"N":{"type":
    "object","properties":{"next":{"$ref":"#/definitions/N"}}}},
    "properties":{"n":{"$ref":"#/definitions/N"}}})");
  CHECK(normalize_schema(loop)["properties"]["n"]["type"] == "object");
}

TEST_CASE("mcp enabledTools accepts star and either name") {
  CHECK(mcp_tool_enabled({"*"}, "x", "mcp_s_x"));
  CHECK(mcp_tool_enabled({"x"}, "x", "mcp_s_x"));
  CHECK(mcp_tool_enabled({"mcp_s_x"}, "x", "mcp_s_x"));
  CHECK_FALSE(mcp_tool_enabled({"y"}, "x", "mcp_s_x"));
  CHECK_FALSE(mcp_tool_enabled({}, "x", "mcp_s_x"));
}

TEST_CASE("mcp call results become text") {
  auto r = json::parse(R"({"content":[{"type":"text","text":"one"},
    {"type":"image","mimeType":"image/png","data":"AAAA"},
    {"type":"resource","resource":{"uri":"file:///a","text":"res"}}]})");
  CHECK(mcp_result_text(r)
        == "one\n[image: image/png, 4 base64 characters, not shown]\nres");
  auto structured = json::parse(R"({"content":[],"structuredContent":{"a":1}})");
  CHECK(mcp_result_text(structured) == "{\n  \"a\": 1\n}");
}
