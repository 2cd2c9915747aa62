// Slash command parsing and replies.
#include <doctest/doctest.h>

#include "actors/session/commands.hpp"

using nb::command_kind;

TEST_CASE("commands match case-insensitively and drop a bot suffix") {
  CHECK(nb::parse_command("/help").kind == command_kind::help);
  CHECK(nb::parse_command("  /NEW  ").kind == command_kind::new_session);
  CHECK(nb::parse_command("/Status@my_bot").kind == command_kind::status);
  auto c = nb::parse_command("/status@bot extra words");
  CHECK(c.kind == command_kind::status);
  CHECK(c.args == "extra words");
}

TEST_CASE("plain text is not a command") {
  CHECK(nb::parse_command("hello /help").kind == command_kind::none);
  CHECK(nb::parse_command("").kind == command_kind::none);
}

TEST_CASE("unknown commands get a suggestion when one is close") {
  auto c = nb::parse_command("/hlep");
  CHECK(c.kind == command_kind::unknown);
  CHECK(nb::unknown_command_text(c.name).find("Did you mean \"/help\"")
        != std::string::npos);
  auto far = nb::unknown_command_text("/frobnicate");
  CHECK(far.find("/help") != std::string::npos);
  CHECK(far.find("Did you mean") == std::string::npos);
}

TEST_CASE("help lists every command") {
  auto h = nb::help_text();
  for (auto name : {"/help", "/new", "/status"})
    CHECK(h.find(name) != std::string::npos);
}
