// The cron tool through the tool registry, as the model calls it.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "actors/cron/job_store.hpp"
#include "actors/tools/registry.hpp"
#include "tests/support/scratch_dir.hpp"

namespace {

using namespace nb;
using json = nlohmann::json;

struct tool_env {
  test::scratch_dir ws;
  settings cfg;
  tool_registry reg = make_builtin_registry(cfg);

  tool_output call(const json& args, std::string session = "telegram:42") {
    tool_context ctx;
    ctx.workspace = ws.path;
    ctx.session_key = std::move(session);
    return reg.execute(tool_call{"c1", "cron", args.dump()}, ctx);
  }
};

} // namespace

TEST_CASE("the cron tool adds lists and removes jobs bound to the chat") {
  tool_env env;
  auto spec = env.reg.find("cron");
  REQUIRE(spec);
  CHECK(json::parse(spec->spec.parameters_json)["required"]
        == json::array({"action"}));
  auto out = env.call({{"action", "add"},
                       {"message", "check the oven"},
                       {"cron_expr", "0 18 * * *"},
                       {"tz", "Europe/Berlin"}});
  REQUIRE_MESSAGE(!out.is_error, out.content);
  CHECK(out.content.rfind("Created job 'check the oven' (id: ", 0) == 0);
  auto id = out.content.substr(out.content.find("id: ") + 4, 8);
  auto jobs = cron::job_store{env.ws.at("cron")}.read().jobs;
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].session_key == "telegram:42");
  CHECK(jobs[0].origin_channel == "telegram");
  CHECK(jobs[0].origin_chat_id == "42");
  auto listed = env.call({{"action", "list"}});
  CHECK(listed.content.find("cron: 0 18 * * * (Europe/Berlin)")
        != std::string::npos);
  CHECK(env.call({{"action", "remove"}, {"job_id", id}}).content
        == "Removed job " + id);
  CHECK(env.call({{"action", "list"}}).content == "No scheduled jobs.");
}

TEST_CASE("the cron tool refuses what it cannot schedule") {
  tool_env env;
  auto out = env.call({{"action", "add"}, {"message", "x"},
                       {"every_seconds", 60}},
                      "heartbeat");
  CHECK(out.is_error);
  CHECK(out.content.find("must be created from a chat session")
        != std::string::npos);
  out = env.call({{"action", "add"}, {"message", "x"}, {"at", "soon"}});
  CHECK(out.is_error);
  CHECK(out.content.find("not an ISO date-time") != std::string::npos);
  out = env.call({{"action", "explode"}});
  CHECK(out.is_error);
  out = env.call({{"action", "remove"}});
  CHECK(out.is_error);
  CHECK(out.content.find("job_id is required") != std::string::npos);
}
