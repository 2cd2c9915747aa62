// The turn table, state by event, including the missing transitions.
#include <doctest/doctest.h>

#include <map>
#include <utility>

#include "actors/session/turn_machine.hpp"

using nb::turn_event;
using nb::turn_state;

namespace {

using key = std::pair<turn_state, turn_event>;

// The expected table, written out independently of the implementation.
const std::map<key, turn_state> expected{
  {{turn_state::restore, turn_event::ok}, turn_state::compact},
  {{turn_state::compact, turn_event::ok}, turn_state::command},
  {{turn_state::command, turn_event::dispatch}, turn_state::build},
  {{turn_state::command, turn_event::shortcut}, turn_state::done},
  {{turn_state::build, turn_event::ok}, turn_state::run},
  {{turn_state::run, turn_event::ok}, turn_state::save},
  {{turn_state::save, turn_event::ok}, turn_state::respond},
  {{turn_state::respond, turn_event::ok}, turn_state::done},
  {{turn_state::restore, turn_event::fail}, turn_state::save},
  {{turn_state::compact, turn_event::fail}, turn_state::save},
  {{turn_state::command, turn_event::fail}, turn_state::save},
  {{turn_state::build, turn_event::fail}, turn_state::save},
  {{turn_state::run, turn_event::fail}, turn_state::save},
  {{turn_state::save, turn_event::fail}, turn_state::respond},
  {{turn_state::respond, turn_event::fail}, turn_state::done},
};

} // namespace

TEST_CASE("every state by every event matches the table") {
  int checked = 0;
  for (int s = 0; s < nb::turn_state_count; ++s) {
    for (int e = 0; e < nb::turn_event_count; ++e) {
      auto from = static_cast<turn_state>(s);
      auto ev = static_cast<turn_event>(e);
      auto got = nb::next_state(from, ev);
      auto i = expected.find({from, ev});
      CAPTURE(nb::to_string(from));
      CAPTURE(nb::to_string(ev));
      if (i == expected.end())
        CHECK_FALSE(got.has_value());
      else
        CHECK(got == i->second);
      ++checked;
    }
  }
  CHECK(checked == 32);
}

TEST_CASE("a dispatched turn walks all seven states with a trace") {
  nb::turn_machine m;
  m.start(0);
  CHECK(m.fire(turn_event::ok, 10));
  CHECK(m.fire(turn_event::ok, 30));
  CHECK(m.fire(turn_event::dispatch, 60));
  CHECK(m.fire(turn_event::ok, 100));
  CHECK(m.fire(turn_event::ok, 1100));
  CHECK(m.fire(turn_event::ok, 1150));
  CHECK(m.fire(turn_event::ok, 1160));
  CHECK(m.done());
  CHECK_FALSE(m.failed());
  REQUIRE(m.trace().size() == 7);
  CHECK(m.trace()[0].state == turn_state::restore);
  CHECK(m.trace()[0].duration_us == 10);
  CHECK(m.trace()[4].state == turn_state::run);
  CHECK(m.trace()[4].duration_us == 1000);
  CHECK(m.trace()[6].state == turn_state::respond);
}

TEST_CASE("a command shortcut ends the turn at COMMAND") {
  nb::turn_machine m;
  m.start(0);
  m.fire(turn_event::ok, 1);
  m.fire(turn_event::ok, 2);
  CHECK(m.fire(turn_event::shortcut, 3));
  CHECK(m.done());
  CHECK(m.trace().size() == 3);
}

TEST_CASE("a failure winds down through SAVE and RESPOND") {
  nb::turn_machine m;
  m.start(0);
  for (auto e : {turn_event::ok, turn_event::ok, turn_event::dispatch,
                 turn_event::ok})
    m.fire(e, 1);
  CHECK(m.state() == turn_state::run);
  CHECK(m.fire(turn_event::fail, 2));
  CHECK(m.state() == turn_state::save);
  CHECK(m.failed());
  CHECK(m.fire(turn_event::ok, 3));
  CHECK(m.fire(turn_event::ok, 4));
  CHECK(m.done());
  CHECK(m.failed());
}

TEST_CASE("a missing transition is refused with a message naming it") {
  nb::turn_machine m;
  m.start(0);
  CHECK_FALSE(m.fire(turn_event::dispatch, 1));
  CHECK(m.state() == turn_state::restore);
  CHECK(m.error() == "No transition from RESTORE on event 'dispatch'");
  m.fire(turn_event::ok, 1);
  m.fire(turn_event::ok, 1);
  CHECK_FALSE(m.fire(turn_event::ok, 1));
  CHECK(m.error().find("COMMAND") != std::string::npos);
  nb::turn_machine idle;
  CHECK(idle.done());
  CHECK_FALSE(idle.fire(turn_event::ok, 1));
}
