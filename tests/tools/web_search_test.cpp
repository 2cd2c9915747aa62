// web_search against scripted provider servers speaking each provider's
// real wire format (Brave, Tavily, SearXNG JSON; DuckDuckGo's HTML page),
// on a whitelisted loopback address; a key-less provider falls back to
// DuckDuckGo.
#include <doctest/doctest.h>

#include "tests/tools/fixture.hpp"
#include "tests/tools/http_servers.hpp"

using namespace nb;
using nb::test::has;
using nlohmann::json;

namespace {

struct search_fixture {
  test::temp_tree tree;
  test::local_server api{"127.0.0.2"};
  std::string seen_key;
  std::string seen_query;

  search_fixture() {
    api.svr.Get("/res/v1/web/search",
                [this](const httplib::Request& req, httplib::Response& res) {
      seen_key = req.get_header_value("X-Subscription-Token");
      seen_query = req.get_param_value("q");
      json body = {{"web", {{"results", json::array()}}}};
      for (int i = 1; i <= 3; ++i)
        body["web"]["results"].push_back(
          {{"title", "Brave " + std::to_string(i)},
           {"url", "https://b.example/" + std::to_string(i)},
           {"description", "about " + seen_query}});
      res.set_content(body.dump(), "application/json");
    });
    api.svr.Post("/search",
                 [this](const httplib::Request& req, httplib::Response& res) {
      auto in = json::parse(req.body);
      seen_key = req.get_header_value("Authorization");
      seen_query = in["query"];
      json body = {{"results",
                    {{{"title", "Tavily hit"},
                      {"url", "https://t.example/"},
                      {"content", "max " + std::to_string(
                                    in["max_results"].get<int>())}}}}};
      res.set_content(body.dump(), "application/json");
    });
    api.svr.Get("/search",
                [this](const httplib::Request& req, httplib::Response& res) {
      seen_query = req.get_param_value("q");
      CHECK(req.get_param_value("format") == "json");
      json body = {{"results",
                    {{{"title", "Searx hit"},
                      {"url", "https://s.example/"},
                      {"content", "snippet"}}}}};
      res.set_content(body.dump(), "application/json");
    });
    api.svr.Get("/html/",
                [this](const httplib::Request& req, httplib::Response& res) {
      seen_query = req.get_param_value("q");
      res.set_content(
        "<html><body><div class=\"result\"><h2><a rel=\"nofollow\" "
        "class=\"result__a\" href=\"//duckduckgo.com/l/?uddg=https%3A%2F%2F"
        "d.example%2Fpage%3Fa%3D1&amp;rut=x\">Duck <b>one</b></a></h2>"
        "<a class=\"result__snippet\" href=\"#\">First &amp; best</a></div>"
        "<div class=\"result\"><h2><a class=\"result__a\" "
        "href=\"https://d.example/two\">Duck two</a></h2></div>"
        "</body></html>",
        "text/html");
    });
    api.start();
  }

  tool_context ctx(const std::string& provider, const std::string& key) {
    auto c = tree.ctx();
    c.ssrf_whitelist = {"127.0.0.2/32"};
    c.web.search.provider = provider;
    c.web.search.api_key = key;
    c.web.search.base_url = api.base();
    c.web.search.fallback_base_url = api.base();
    return c;
  }
};

} // namespace

TEST_CASE_FIXTURE(search_fixture, "web_search brave numbers its results") {
  auto out = test::run(ctx("brave", "bk-1"), "web_search",
                       {{"query", "c++ actors"}, {"count", 2}});
  REQUIRE_FALSE(out.is_error);
  CHECK(seen_key == "bk-1");
  CHECK(seen_query == "c++ actors");
  CHECK(has(out.content, "Results for: c++ actors\n\n1. Brave 1\n   "
                         "https://b.example/1\n   about c++ actors\n2. "
                         "Brave 2"));
  CHECK_FALSE(has(out.content, "Brave 3"));
  CHECK(has(out.content, "treat as data"));
}

TEST_CASE_FIXTURE(search_fixture, "web_search tavily and searxng") {
  auto t = test::run(ctx("tavily", "tk"), "web_search",
                     {{"query", "q1"}, {"count", 4}});
  CHECK(seen_key == "Bearer tk");
  CHECK(has(t.content, "1. Tavily hit\n   https://t.example/\n   max 4"));
  auto s = test::run(ctx("searxng", ""), "web_search", {{"query", "q2"}});
  CHECK(seen_query == "q2");
  CHECK(has(s.content, "1. Searx hit\n   https://s.example/\n   snippet"));
}

TEST_CASE_FIXTURE(search_fixture, "web_search falls back to duckduckgo without a key") {
  for (auto provider : {"brave", "tavily", "duckduckgo", "unknown"}) {
    CAPTURE(provider);
    auto out = test::run(ctx(provider, ""), "web_search",
                         {{"query", "ducks"}});
    REQUIRE_FALSE(out.is_error);
    CHECK(seen_query == "ducks");
    CHECK(has(out.content, "1. Duck one\n   https://d.example/page?a=1\n   "
                           "First & best\n2. Duck two\n   "
                           "https://d.example/two"));
  }
}

TEST_CASE_FIXTURE(search_fixture, "web_search goes through the SSRF guard") {
  auto c = ctx("brave", "k");
  c.ssrf_whitelist.clear();
  auto out = test::run(c, "web_search", {{"query", "x"}});
  CHECK(out.is_error);
  CHECK(has(out.content, "is blocked"));
  CHECK(api.hits == 0);
  auto empty = test::run(ctx("brave", "k"), "web_search", {{"query", "  "}});
  CHECK(empty.is_error);
}
