// The inbox tests' probe: a real inbox on a real journal in a scratch
// home, with the test playing the entry router it passes messages to.
#pragma once

#include <optional>
#include <string>

#include <caf/all.hpp>

#include "actors/inbox/inbox.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

namespace nb::test {

/// The test plays the entry router: the inbox passes messages to it.
struct inbox_probe : test::system_fixture {
  test::scratch_dir home;
  caf::scoped_actor self{sys};
  inbox_actor inbox;

  inbox_config config(int64_t max_bytes = 1 << 20) {
    inbox_config c;
    c.dir = home.at("inbox");
    c.max_bytes = max_bytes;
    c.compact_min_bytes = 1024;
    return c;
  }

  void start(int64_t max_bytes = 1 << 20) { start(config(max_bytes)); }

  /// Starts the inbox with `c` (a config() with a field changed).
  void start(const inbox_config& c) {
    inbox = spawn_inbox(sys, c, caf::actor_cast<router_actor>(self),
                        stats_actor{});
  }

  void stop() {
    if (!inbox)
      return;
    self->send_exit(inbox, caf::exit_reason::kill);
    self->wait_for(inbox);
    inbox = nullptr;
  }

  ~inbox_probe() { stop(); }

  /// Records `m` and returns the receipt (nullopt: an error, in `error`).
  std::optional<inbox_receipt> put(inbound_msg m) {
    std::optional<inbox_receipt> out;
    self->request(inbox, std::chrono::seconds(10), inbox_record{std::move(m)})
      .receive([&](inbox_receipt& r) { out = r; },
               [&](caf::error& e) { error = sys.render(e); });
    return out;
  }

  std::optional<inbound_msg> next(std::chrono::milliseconds t
                                  = std::chrono::seconds(5)) {
    std::optional<inbound_msg> out;
    self->receive([&](inbound_msg& m) { out = std::move(m); },
                  caf::after(t) >> [] {});
    return out;
  }

  std::string journal() { return test::read_all(home.at("inbox/journal")); }

  std::string error;
};


} // namespace nb::test
