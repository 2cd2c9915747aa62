// The registry: definitions, name lookup with suggestions, argument
// coercion, schema casts and validation, result shaping (C1-C5).
#include <doctest/doctest.h>

#include <stdexcept>

#include "actors/tools/registry.hpp"
#include "actors/tools/schema.hpp"
#include "tests/tools/fixture.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

// The built-in list without the browser tool, which is on wherever Chromium
// is installed (tests/browser covers it).
settings without_browser() {
  settings s;
  s.tools.browser.enable = false;
  return s;
}

// A registry with the built-ins plus small probes that echo or fail.
tool_registry probe_registry() {
  auto reg = make_builtin_registry(without_browser());
  json free_schema = {{"type", "object"}, {"properties", json::object()}};
  reg.add({"noop", "echoes its arguments", free_schema.dump(), true, false},
          [](const json& args, const tool_context&) -> tool_output {
            return {args.empty() ? "" : args.dump(), false};
          });
  json typed = {{"type", "object"},
                {"properties",
                 {{"ratio", {{"type", "number"}}},
                  {"count", {{"type", "integer"}, {"maximum", 10}}},
                  {"flag", {{"type", "boolean"}}},
                  {"mode", {{"type", "string"}, {"enum", {"a", "b"}}}},
                  {"tags", {{"type", "array"}, {"items", {{"type", "integer"}}}}}}},
                {"additionalProperties", false}};
  reg.add({"typed", "typed probe", typed.dump(), true, false},
          [](const json& args, const tool_context&) -> tool_output {
            return {args.dump(), false};
          });
  reg.add({"boom", "throws", free_schema.dump(), false, false},
          [](const json&, const tool_context&) -> tool_output {
            throw std::runtime_error("kaput");
          });
  reg.add({"mcp_fs_list", "an MCP tool", free_schema.dump(), false, false},
          [](const json&, const tool_context&) -> tool_output {
            return {"ok", false};
          });
  return reg;
}

tool_output call(const tool_registry& reg, const std::string& name,
                 const std::string& args) {
  return reg.execute(tool_call{"c1", name, args}, tool_context{});
}

} // namespace

TEST_CASE("registry lists built-ins sorted then mcp tools with their flags") {
  auto defs = probe_registry().definitions();
  std::vector<std::string> names;
  for (auto& d : defs)
    names.push_back(d.name);
  CHECK(names
        == std::vector<std::string>{"apply_patch", "boom", "cron", "edit_file",
                                    "exec", "find_files", "grep", "list_dir",
                                    "list_exec_sessions", "list_sessions",
                                    "memory_forget",
                                    "memory_save", "memory_search", "message", "my",
                                    "noop", "read_file", "read_session",
                                    "run_cli_app",
                                    "search_sessions", "send_session_message",
                                    "typed", "web_fetch",
                                    "web_search", "write_file", "write_stdin",
                                    "mcp_fs_list"});
  auto reg = make_builtin_registry(without_browser());
  CHECK(concurrency_safe(reg.find("read_file")->spec));
  CHECK(concurrency_safe(reg.find("list_dir")->spec));
  CHECK(reg.find("exec")->spec.exclusive);
  CHECK(reg.find("write_stdin")->spec.exclusive);
  CHECK(concurrency_safe(reg.find("list_exec_sessions")->spec));
  CHECK_FALSE(reg.find("write_file")->spec.read_only);
  CHECK_FALSE(reg.find("edit_file")->spec.read_only);
  auto schema = json::parse(reg.find("read_file")->spec.parameters_json);
  CHECK(schema["required"] == json{"path"});
  CHECK(schema["properties"].contains("offset"));
  CHECK(schema["additionalProperties"] == false);
}

TEST_CASE("registry leaves exec out when tools.exec.enable is false") {
  settings cfg;
  cfg.tools.exec.enable = false;
  CHECK(make_builtin_registry(cfg).find("exec") == nullptr);
  CHECK(make_builtin_registry(cfg).find("read_file") != nullptr);
}

TEST_CASE("registry rejects unknown tools and suggests only close names") {
  auto reg = probe_registry();
  auto near = call(reg, "read_fiel", "{}");
  CHECK(near.is_error);
  CHECK(has(near.content, "Error: Tool 'read_fiel' not found."));
  CHECK(has(near.content, "Did you mean 'read_file'? Tool names must match "
                          "exactly."));
  CHECK(has(near.content, "Available: apply_patch, boom, cron, edit_file"));
  CHECK(has(near.content, "[Analyze the error above and try a different "
                          "approach.]"));
  CHECK(has(call(reg, "readFile", "{}").content, "Did you mean 'read_file'"));
  auto far = call(reg, "rm_everything", "{}");
  CHECK(far.is_error);
  CHECK(has(far.content, "Tool 'rm_everything' not found."));
  CHECK_FALSE(has(far.content, "Did you mean"));
}

TEST_CASE("registry rejects calls without a tool name") {
  auto reg = probe_registry();
  for (auto name : {"", "   "}) {
    auto out = call(reg, name, "{}");
    CHECK(out.is_error);
    CHECK(has(out.content, "Tool call has no tool name"));
  }
}

TEST_CASE("registry reports malformed JSON arguments with a bounded preview") {
  auto reg = probe_registry();
  auto out = call(reg, "noop", R"({"path": )");
  CHECK(out.is_error);
  CHECK(has(out.content, "Error: Invalid parameters for tool 'noop': "
                         "arguments are not valid JSON (received: "
                         "{\"path\":"));
  CHECK(call(reg, "noop", R"({"a": 1,})").is_error);
  auto big = call(reg, "noop", "{" + std::string(5000, 'x'));
  CHECK(big.is_error);
  CHECK(big.content.size() < 600);
}

TEST_CASE("registry treats null and empty arguments as an empty object") {
  auto reg = probe_registry();
  for (auto args : {"", "null", "  ", "\"\""}) {
    auto out = call(reg, "noop", args);
    CHECK_FALSE(out.is_error);
    CHECK(out.content == "(noop completed with no output)");
  }
}

TEST_CASE("registry unwraps an arguments wrapper and double encoding") {
  auto reg = probe_registry();
  CHECK(call(reg, "noop", R"({"arguments": {"x": 1}})").content
        == R"({"x":1})");
  CHECK(call(reg, "noop", R"({"arguments": "{\"x\": 2}"})").content
        == R"({"x":2})");
  CHECK(call(reg, "noop", R"("{\"x\": 3}")").content == R"({"x":3})");
}

TEST_CASE("registry rejects scalar and array arguments with a hint") {
  auto reg = probe_registry();
  for (auto [args, type] : std::vector<std::pair<std::string, std::string>>{
         {"5", "number"}, {"[]", "array"}, {"true", "boolean"},
         {"\"x\"", "string"}, {"\"https://example.com\"", "string"}}) {
    auto out = call(reg, "noop", args);
    CHECK(out.is_error);
    CHECK(has(out.content, "parameters must be a JSON object, got " + type));
    CHECK(has(out.content, "tool_name(param1=\"value1\""));
  }
  CHECK(has(call(reg, "read_file", "https://x").content, "not valid JSON"));
}

TEST_CASE("registry casts lossless values and rejects type errors") {
  auto reg = probe_registry();
  auto ok = call(reg, "typed",
                 R"({"count":"5","ratio":"1.5","flag":"yes","tags":["1",2]})");
  CHECK_FALSE(ok.is_error);
  CHECK(json::parse(ok.content)
        == json::parse(R"({"count":5,"ratio":1.5,"flag":true,"tags":[1,2]})"));
  CHECK(json::parse(call(reg, "typed", R"({"count":7.0})").content)["count"]
        == 7);
  struct bad_case {
    const char* args;
    const char* message;
  };
  for (auto c : {bad_case{R"({"count":"5x"})", "count should be integer"},
                 bad_case{R"({"count":true})", "count should be integer"},
                 bad_case{R"({"count":2.5})", "count should be integer"},
                 bad_case{R"({"count":11})", "count must be <= 10"},
                 bad_case{R"({"ratio":true})", "ratio should be number"},
                 bad_case{R"({"ratio":"NaN"})", "ratio must be finite"},
                 // nlohmann refuses to parse an overflowing literal.
                 bad_case{R"({"ratio":1e309})", "not valid JSON"},
                 bad_case{R"({"mode":"c"})", "mode must be one of"},
                 bad_case{R"({"tags":["x"]})", "tags[0] should be integer"},
                 bad_case{R"({"extra":1})", "unexpected parameter extra"}}) {
    auto out = call(reg, "typed", c.args);
    std::string shown = c.args;
    CAPTURE(shown);
    CHECK(out.is_error);
    CHECK(has(out.content, "Error: Invalid parameters for tool 'typed': "));
    CHECK(has(out.content, c.message));
  }
}

TEST_CASE("registry rejects unknown and missing built-in parameters") {
  test::temp_tree t;
  t.put("ws/sample.txt", "one\ntwo\n");
  auto out = test::run(t.ctx(), "read_file",
                       {{"path", "sample.txt"}, {"line_limit", 1}});
  CHECK(out.is_error);
  CHECK(has(out.content, "unexpected parameter line_limit"));
  CHECK_FALSE(has(out.content, "one"));
  auto missing = test::run(t.ctx(), "edit_file",
                           {{"path", "sample.txt"}, {"old_text", "one"}});
  CHECK(has(missing.content, "missing required new_text"));
  CHECK(t.get("ws/sample.txt") == "one\ntwo\n");
  auto offset = test::run(t.ctx(), "read_file",
                          {{"path", "sample.txt"}, {"offset", "2"}});
  CHECK_FALSE(offset.is_error);
  CHECK(has(offset.content, "2| two"));
}

TEST_CASE("registry turns tool exceptions into error results") {
  auto out = call(probe_registry(), "boom", "{}");
  CHECK(out.is_error);
  CHECK(has(out.content, "Error executing boom: kaput"));
  CHECK(has(out.content, "[Analyze the error above"));
}

TEST_CASE("registry refuses a tool whose schema is not an object") {
  tool_registry reg;
  CHECK_THROWS_AS(reg.add({"bad", "", "[1]", false, false}, {}),
                  std::invalid_argument);
}

TEST_CASE("schema validation accepts nullable values and nested objects") {
  json schema = {{"type", "object"},
                 {"properties",
                  {{"n", {{"type", {"integer", "null"}}}},
                   {"o",
                    {{"type", "object"},
                     {"properties", {{"k", {{"type", "string"}}}}},
                     {"required", {"k"}}}}}}};
  CHECK(validate_against_schema(json{{"n", nullptr}}, schema).empty());
  auto errs = validate_against_schema(json{{"o", json::object()}}, schema);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == "missing required o.k");
  CHECK(cast_to_schema(json{{"o", {{"k", 5}}}}, schema)["o"]["k"] == "5");
}

TEST_CASE("schemas that are not objects cast and validate nothing and never throw") {
  // Found by fuzz_tool_args: an MCP server's schema with a number where a
  // sub-schema belongs made the cast throw.
  auto args = json{{"path", "a.txt"}, {"limit", "5"}};
  CHECK(cast_to_schema(args, json(5)) == args);
  CHECK(validate_against_schema(args, json(5)).empty());
  auto schema = json{{"type", "object"},
                     {"properties", {{"path", 5}, {"limit", "integer"}}},
                     {"additionalProperties", json::array()}};
  CHECK(cast_to_schema(args, schema) == args);
  CHECK(cast_to_schema(json{{"other", 1}}, schema) == json{{"other", 1}});
  CHECK_NOTHROW(validate_against_schema(args, schema));
  auto arr = json{{"type", "array"}, {"items", 7}};
  CHECK(cast_to_schema(json::array({1, "2"}), arr) == json::array({1, "2"}));
  CHECK_NOTHROW(validate_against_schema(json::array({1}), arr));
}
