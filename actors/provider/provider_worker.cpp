#include "actors/provider/provider_worker.hpp"

#include <algorithm>

#include <caf/all.hpp>

#include "actors/common/meter.hpp"
#include "actors/common/thread_name.hpp"

namespace nb {

namespace {

struct worker_state {
  worker_state() = default;
  static inline const char* name = "provider_worker";
  settings cfg;
  std::unique_ptr<client_pool> clients;
  actor_meter meter;
};

provider_worker_actor::behavior_type
worker_impl(provider_worker_actor::stateful_pointer<worker_state> self,
            settings cfg, client_options opts,
            std::shared_ptr<const std::atomic<bool>> stop, stats_actor stats) {
  name_thread("nb.provider");
  self->state.cfg = std::move(cfg);
  self->state.clients =
    std::make_unique<client_pool>(std::move(opts), std::move(stop));
  self->state.meter.start(self, "provider_worker", stats);
  return {
    [self](model_request& req, int32_t start,
           std::vector<std::string>& responses_open,
           std::vector<std::string>& compaction_off)
      -> caf::result<model_reply, bool, responses_report> {
      auto t = self->state.meter.measure();
      callbacks cb;
      if (req.stream_to) {
        auto sink = req.stream_to;
        auto id = req.request_id;
        cb.on_delta = [self, sink, id](std::string text, bool reasoning) {
          self->send(sink, model_delta{id, std::move(text), reasoning});
        };
        cb.on_hosted_tool = [self, sink, id](std::string name,
                                             std::string arguments) {
          self->send(sink, model_delta{id, std::move(arguments), false,
                                       std::move(name)});
        };
        cb.on_retry_wait = [self, sink, id](std::string text) {
          self->send(sink, model_retry_notice{id, std::move(text)});
        };
      }
      auto plan = plan_candidates(self->state.cfg, req);
      auto first = static_cast<size_t>(std::max(0, start));
      if (first >= plan.size())
        first = 0;
      auto out = call_with_fallbacks(*self->state.clients, plan, first,
                                     std::move(req), cb, responses_open,
                                     compaction_off);
      if (out.reply.finish_reason == "error")
        self->state.meter.failed();
      return {std::move(out.reply), out.first_failed, std::move(out.responses)};
    },
  };
}

} // namespace

provider_worker_actor spawn_provider_worker(
  caf::local_actor* parent, settings cfg, client_options opts,
  std::shared_ptr<const std::atomic<bool>> stop, stats_actor stats) {
  return parent->spawn<caf::detached>(worker_impl, std::move(cfg),
                                      std::move(opts), std::move(stop),
                                      std::move(stats));
}

} // namespace nb
