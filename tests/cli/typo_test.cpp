// Unknown commands, actions and options: "did you mean" and exit code 2.
#include <doctest/doctest.h>

#include "tests/cli/cli_home.hpp"

using namespace nb::test;

TEST_CASE("nanobot suggests the closest command and exits 2") {
  cli_home h;
  auto r = h.nanobot({"gatway"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown command 'gatway'; did you mean 'gateway'?"));
  r = h.nanobot({"stauts"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean 'status'?"));
  // Nothing close: no suggestion, still refused.
  r = h.nanobot({"frobnicate"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown command 'frobnicate'"));
  CHECK_FALSE(has(r.err, "did you mean"));
}

TEST_CASE("nanobot suggests the closest option and sub-action") {
  cli_home h;
  auto r = h.nanobot({"agent", "--no-markdwn", "-m", "hi"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown option '--no-markdwn'; did you mean "
                   "'--no-markdown'?"));
  r = h.nanobot({"gateway", "--backgroud"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean '--background'?"));
  r = h.nanobot({"gateway", "stauts"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown action 'stauts'; did you mean 'status'?"));
  r = h.nanobot({"cron", "lsit"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown action 'lsit'; did you mean 'list'?"));
  r = h.nanobot({"cron", "list", "--nmae", "x"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean '--name'?"));
  r = h.nanobot({"memory", "stats", "--categroy", "fact"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "did you mean '--category'?"));
  r = h.nanobot({"gateway", "--foreground", "--background"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "cannot be used together"));
}
