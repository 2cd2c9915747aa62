// An actor system with nanobot's message types, for actor-level tests.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "messages/type_ids.hpp"

namespace nb::test {

/// Two scheduler threads, like the machines the suite runs on. Actors a test
/// spawns must be stopped before the fixture ends (see docs/TOOLCHAIN).
struct system_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys;

  static caf::actor_system_config& init(caf::actor_system_config& cfg) {
    register_messages(cfg);
    cfg.set("scheduler.max-threads", 2);
    return cfg;
  }

  system_fixture() : sys(init(cfg)) {}
};

} // namespace nb::test
