// A provider actor over the scripted server, for tests that send it whole
// model requests: the actor system, the actor and a blocking ask.
#pragma once

#include <chrono>
#include <string>

#include <caf/all.hpp>

#include "actors/provider/provider.hpp"
#include "messages/type_ids.hpp"
#include "tests/provider/client_fixture.hpp"

namespace nb::test {

inline caf::actor_system_config&
provider_gateway_config(caf::actor_system_config& cfg) {
  register_messages(cfg);
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

struct provider_gateway {
  fake_llm llm;
  caf::actor_system_config cfg;
  caf::actor_system sys{provider_gateway_config(cfg)};
  provider_actor provider;

  provider_gateway() = default;
  provider_gateway(const provider_gateway&) = delete;
  provider_gateway& operator=(const provider_gateway&) = delete;

  ~provider_gateway() {
    caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
  }

  void start(const settings& s) {
    provider = spawn_provider(sys, s, stats_actor{}, fast());
  }

  /// The reply to `rq` (an error of the actor itself in `error`).
  model_reply send(model_request rq) {
    caf::scoped_actor self{sys};
    model_reply out;
    self->request(provider, std::chrono::seconds(30), std::move(rq))
      .receive([&](model_reply& r) { out = std::move(r); },
               [&](caf::error& e) { out.error = sys.render(e); });
    return out;
  }

  /// The path of the fake's last request ("/v1/responses", ...).
  std::string last_path() const { return llm.requests().back().path; }
};

} // namespace nb::test
