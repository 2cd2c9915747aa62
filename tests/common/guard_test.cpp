// The exception guard: a handler that throws answers an error (or logs),
// and the actor lives on to handle the next message.
#include <doctest/doctest.h>

#include <stdexcept>

#include <caf/all.hpp>

#include "actors/common/guard.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;

namespace {

using probe_actor = caf::typed_actor<
  caf::replies_to<int32_t>::with<int32_t>,
  caf::replies_to<std::string>::with<caf::ok_atom>,
  caf::reacts_to<bool>>;

struct probe_state {
  probe_state() = default;
  int32_t thrown = 0;
};

probe_actor::behavior_type
probe(probe_actor::stateful_pointer<probe_state> self) {
  return {
    guard("test", [self](int32_t x) -> int32_t {
      if (x < 0)
        throw std::runtime_error("negative input");
      return x * 2;
    }),
    guard("test", [self](const std::string& s) -> caf::result<caf::ok_atom> {
      if (s == "boom")
        throw std::logic_error("boom");
      return caf::ok_atom::value;
    }),
    guard("test", [self](bool fail) {
      if (fail) {
        ++self->state.thrown;
        throw std::runtime_error("no answer expected");
      }
    }),
  };
}

} // namespace

TEST_CASE_FIXTURE(nb::test::system_fixture, "a guarded handler that throws answers an error and the actor lives on") {
  auto a = sys.spawn(probe);
  caf::scoped_actor self{sys};
  std::string failure;
  self->request(a, std::chrono::seconds(5), int32_t{-1})
    .receive([](int32_t) { FAIL("expected an error"); },
             [&](caf::error& e) { failure = sys.render(e); });
  CHECK(failure.find("negative input") != std::string::npos);
  self->request(a, std::chrono::seconds(5), std::string{"boom"})
    .receive([](caf::ok_atom) { FAIL("expected an error"); },
             [&](caf::error& e) { failure = sys.render(e); });
  CHECK(failure.find("boom") != std::string::npos);
  self->send(a, true); // throws with nobody waiting: logged only
  int32_t doubled = 0;
  self->request(a, std::chrono::seconds(5), int32_t{21})
    .receive([&](int32_t x) { doubled = x; },
             [](caf::error& e) { FAIL(caf::to_string(e)); });
  CHECK(doubled == 42);
  self->request(a, std::chrono::seconds(5), std::string{"fine"})
    .receive([](caf::ok_atom) {}, [](caf::error& e) { FAIL(caf::to_string(e)); });
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}
