#include "actors/common/thread_name.hpp"
#include "actors/tools/tool_worker.hpp"

#include <chrono>

#include <caf/send.hpp>

namespace nb {

int64_t steady_now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch())
    .count();
}

tool_result run_tool_request(const tool_registry& reg, tool_context base,
                             const tool_request& req) {
  tool_result r;
  r.call_id = req.call.id;
  r.name = req.call.name;
  r.started_us = steady_now_us();
  base.session_key = req.session_key;
  base.channel = req.channel;
  base.chat_id = req.chat_id;
  base.suppress_delivery = req.suppress_delivery;
  base.outbox = req.outbox;
  base.call_id = req.call.id;
  base.mail = req.mail;
  base.turn_json = req.turn_json;
  // execute() already turns tool exceptions into results; this catches
  // what could escape around it (allocation failures and the like).
  try {
    auto out = reg.execute(req.call, base);
    r.content = std::move(out.content);
    r.is_error = out.is_error;
    r.delivered_to_origin = out.delivered_to_origin;
  } catch (const std::exception& e) {
    r.content = std::string{"Error executing "} + req.call.name + ": "
                + e.what() + tool_error_hint;
    r.is_error = true;
  } catch (...) {
    r.content = "Error executing " + req.call.name + ": unknown failure"
                + tool_error_hint;
    r.is_error = true;
  }
  r.finished_us = steady_now_us();
  return r;
}

void report_tool_sample(const stats_actor& stats, const tool_result& r,
                        const std::string& agent) {
  if (stats)
    caf::anon_send(stats, tool_sample{r.name, r.is_error,
                                      r.finished_us - r.started_us, agent});
}

tool_executor_actor::behavior_type
tool_worker_impl(tool_executor_actor::stateful_pointer<tool_worker_state> self,
                 std::shared_ptr<const tool_registry> registry,
                 tool_context base, stats_actor stats,
                 std::string meter_kind) {
  name_thread("nb.tool");
  if (!meter_kind.empty())
    self->state.meter.start(self, std::move(meter_kind), stats);
  return {
    [self, registry, base, stats](const tool_request& req) -> tool_result {
      auto t = self->state.meter.measure();
      auto r = run_tool_request(*registry, base, req);
      report_tool_sample(stats, r, base.agent);
      return r;
    },
  };
}

} // namespace nb
