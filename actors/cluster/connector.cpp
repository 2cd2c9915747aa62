#include "actors/cluster/connector.hpp"

#include <caf/actor_system.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace nb {

connector_actor spawn_connector(caf::actor_system& sys,
                                std::vector<endpoint> peers, bool tls) {
  auto impl = [](connector_actor::pointer self, std::vector<endpoint> peers,
                 bool tls) -> connector_actor::behavior_type {
    return {
      [=](connect_atom) -> caf::result<cluster_front_actor> {
        std::string tried;
        std::string last;
        for (auto& p : peers) {
          auto front = connect_to<cluster_front_actor>(self->system(), p, tls);
          if (front)
            return *front;
          tried += (tried.empty() ? "" : ", ") + p.text();
          last = self->system().render(front.error());
        }
        return caf::make_error(caf::sec::cannot_connect_to_node,
                               "no gateway reachable at " + tried + ": "
                                 + last);
      },
    };
  };
  return sys.spawn<caf::detached>(impl, std::move(peers), tls);
}

} // namespace nb
