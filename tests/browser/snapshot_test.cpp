// Browser: the accessibility outline with refs, key names and the URL
// policy, without Chromium.
#include <doctest/doctest.h>

#include "actors/browser/keys.hpp"
#include "actors/browser/snapshot.hpp"
#include "actors/browser/url_policy.hpp"
#include "actors/tools/registry.hpp"

using namespace nb;
using nlohmann::json;

namespace {

json node(const char* id, const char* role, const char* name,
          std::vector<const char*> kids, int backend = 0,
          const char* parent = nullptr) {
  json n{{"nodeId", id},
         {"ignored", false},
         {"role", {{"type", "role"}, {"value", role}}},
         {"name", {{"type", "computedString"}, {"value", name}}},
         {"childIds", json::array()}};
  for (auto k : kids)
    n["childIds"].push_back(k);
  if (backend)
    n["backendDOMNodeId"] = backend;
  if (parent)
    n["parentId"] = parent;
  return n;
}

} // namespace

TEST_CASE("the outline numbers every element the model can act on") {
  json nodes = json::array({
    node("1", "RootWebArea", "Shop", {"2", "3", "4", "6"}, 1),
    node("2", "heading", "Welcome", {}, 2, "1"),
    node("3", "textbox", "Your name", {}, 3, "1"),
    node("4", "button", "Send", {"5"}, 4, "1"),
    node("5", "StaticText", "Send", {}, 5, "4"),
    node("6", "generic", "", {"7"}, 6, "1"),
    node("7", "link", "More", {}, 7, "6"),
  });
  nodes[1]["properties"] = json::array(
    {{{"name", "level"}, {"value", {{"type", "integer"}, {"value", 1}}}}});
  nodes[2]["value"] = {{"type", "string"}, {"value", "Ada"}};
  auto s = render_snapshot(nodes, 10000);
  CHECK(s.text
        == "- heading \"Welcome\" [level=1]\n"
           "- textbox \"Your name\" [ref=1]: Ada\n"
           "- button \"Send\" [ref=2]\n"
           "- link \"More\" [ref=3]\n");
  REQUIRE(s.refs.size() == 3);
  CHECK(s.refs[0].backend_node == 3);
  CHECK(s.refs[2].backend_node == 7);
  CHECK_FALSE(s.truncated);
}

TEST_CASE("the outline keeps to its budget and says so") {
  json nodes = json::array();
  json root = node("r", "RootWebArea", "", {}, 1);
  for (int i = 0; i < 500; ++i) {
    auto id = "n" + std::to_string(i);
    root["childIds"].push_back(id);
    nodes.push_back(node("", "link", "a link with a longish name", {},
                         100 + i, "r"));
    nodes.back()["nodeId"] = id;
  }
  nodes.insert(nodes.begin(), root);
  auto s = render_snapshot(nodes, 2000);
  CHECK(s.truncated);
  CHECK(s.text.size() < 2200);
  CHECK(s.text.find("more lines not shown") != std::string::npos);
  // Every ref handed out is on a line the model sees.
  CHECK(s.text.find("[ref=" + std::to_string(s.refs.size()) + "]")
        != std::string::npos);
  CHECK(s.text.find("[ref=" + std::to_string(s.refs.size() + 1) + "]")
        == std::string::npos);
}

TEST_CASE("a hostile tree (cycle, no root) costs nothing") {
  json cyc = json::array({node("1", "RootWebArea", "", {"2"}, 1),
                          node("2", "button", "x", {"1", "2"}, 2, "1")});
  auto s = render_snapshot(cyc, 1000);
  CHECK(s.refs.size() == 1);
  CHECK(render_snapshot(json::array(), 1000).refs.empty());
  CHECK(render_snapshot(json("nonsense"), 1000).text.find("nothing")
        != std::string::npos);
}

TEST_CASE("key names map to DevTools key events") {
  auto enter = parse_key("Enter");
  CHECK(enter.key_code == 13);
  CHECK(enter.text == "\r");
  auto a = parse_key("Control+a");
  CHECK(a.modifiers == 2);
  CHECK(a.code == "KeyA");
  CHECK(a.text.empty());
  CHECK(parse_key("Shift+Tab").modifiers == 8);
  CHECK(parse_key("x").text == "x");
  CHECK_FALSE(parse_key("NoSuchKey").error.empty());
}

TEST_CASE("local schemes are refused and http goes through the SSRF guard") {
  auto open = make_ssrf_policy({});
  CHECK(check_navigation("file:///etc/passwd", open).find("refused")
        != std::string::npos);
  CHECK_FALSE(check_navigation("chrome://settings", open).empty());
  CHECK_FALSE(check_navigation("devtools://devtools/x", open).empty());
  CHECK_FALSE(check_navigation("javascript:alert(1)", open).empty());
  CHECK_FALSE(check_navigation("http://127.0.0.1:1/", open).empty());
  CHECK_FALSE(check_navigation("http://169.254.169.254/", open).empty());
  CHECK(check_navigation("about:blank", open).empty());
  auto local = make_ssrf_policy({"127.0.0.1/32"});
  CHECK(check_navigation("http://127.0.0.1:1/", local).empty());
  CHECK_FALSE(check_navigation("http://127.0.0.2:1/", local).empty());
  CHECK(check_subrequest("data:text/plain,hi", open).empty());
  CHECK_FALSE(check_subrequest("file:///etc/passwd", open).empty());
  CHECK_FALSE(check_subrequest("http://10.0.0.1/", local).empty());
}

TEST_CASE("the browser tool is exclusive and offers evaluate only when asked") {
  settings cfg;
  cfg.tools.browser.enable = false;
  CHECK(make_builtin_registry(cfg).find("browser") == nullptr);
  cfg.tools.browser.enable = true;
  auto reg = make_builtin_registry(cfg);
  auto* tool = reg.find("browser");
  REQUIRE(tool != nullptr);
  CHECK(tool->spec.exclusive);
  CHECK_FALSE(concurrency_safe(tool->spec));
  CHECK(tool->spec.parameters_json.find("evaluate") == std::string::npos);
  cfg.tools.browser.allow_evaluate = true;
  auto with = make_builtin_registry(cfg);
  CHECK(with.find("browser")->spec.parameters_json.find("\"evaluate\"")
        != std::string::npos);
  // A call without a browser front is a clear error, not a hang.
  auto out = with.execute(tool_call{"c1", "browser", R"({"action":"tabs"})"},
                          make_tool_context(cfg));
  CHECK(out.is_error);
  CHECK(out.content.find("not available") != std::string::npos);
}
