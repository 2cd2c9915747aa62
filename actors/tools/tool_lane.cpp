#include "actors/tools/tool_lane.hpp"

#include <caf/send.hpp>

#include "actors/tools/tool_worker.hpp"

namespace nb {

tool_executor_actor spawn_tool_lane(caf::scheduled_actor* owner,
                                    std::shared_ptr<const tool_registry> reg,
                                    tool_context base, stats_actor stats) {
  auto lane = owner->spawn<caf::detached>(tool_worker_impl, std::move(reg),
                                          std::move(base), std::move(stats),
                                          std::string{"tool_lane"});
  stop_with(owner, lane);
  return lane;
}

} // namespace nb
