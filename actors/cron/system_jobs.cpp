#include "actors/cron/system_jobs.hpp"

#include <algorithm>
#include <chrono>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>

#include "actors/common/timed_request.hpp"
#include "actors/memory/dream.hpp"

namespace nb {

void plan_system_jobs(const settings& cfg, cron_config& out) {
  auto& dream = cfg.agent.dream;
  if (dream.enabled) {
    cron::job j;
    j.id = j.name = "dream";
    j.payload_kind = "system_event";
    if (!dream.cron.empty())
      j.schedule = {"cron", 0, 0, dream.cron, cfg.agent.timezone};
    else
      j.schedule = {"every", 0, int64_t{dream.interval_h} * 3600 * 1000, "",
                    ""};
    out.system_jobs.push_back(std::move(j));
    // A modelPresets name picks Dream's model and provider.
    auto preset = cfg.model_presets.find(dream.model_override);
    if (!dream.model_override.empty() && preset != cfg.model_presets.end()) {
      out.dream_model = preset->second.model;
      out.dream_provider = preset->second.provider;
    } else {
      out.dream_model = cfg.agent.model;
      out.dream_provider = cfg.agent.provider;
    }
  } else {
    out.retired_system_jobs.push_back("dream");
  }
  auto& hb = cfg.gateway.heartbeat;
  if (hb.enabled) {
    cron::job j;
    j.id = j.name = "heartbeat";
    j.payload_kind = "system_event";
    j.schedule = {"every", 0, int64_t{std::max(hb.interval_s, 1)} * 1000, "",
                  cfg.agent.timezone};
    out.system_jobs.push_back(std::move(j));
  } else {
    out.retired_system_jobs.push_back("heartbeat");
  }
}

void run_system_job(cron_pointer self, const cron::job& job,
                    std::function<void(std::string)> done) {
  auto& st = self->state;
  if (job.name == "heartbeat" || job.id == "heartbeat") {
    if (!st.cfg.heartbeat) {
      done("heartbeat: skipped (the heartbeat is off in this gateway)");
      return;
    }
    timed_request(self, st.cfg.heartbeat, std::chrono::seconds(7200),
                  heartbeat_run_atom::value)
      .then([=](std::string& what) { done("heartbeat: " + what); },
            [=](caf::error& err) {
              done("heartbeat: failed (" + self->system().render(err) + ")");
            });
    return;
  }
  if (job.name == "dream" || job.id == "dream") {
    if (st.dream_running) {
      done("dream: skipped (the previous run is still going)");
      return;
    }
    if (!st.provider) {
      done("dream: skipped (no model provider yet)");
      return;
    }
    dream_job dj;
    dj.provider = st.provider;
    dj.model = st.cfg.dream_model;
    dj.provider_name = st.cfg.dream_provider;
    dj.workspace = st.cfg.workspace;
    dj.timeout = st.cfg.dream_timeout;
    st.dream_running = true;
    // Linked: a cron that stops (shutdown, the schedules lease moved to
    // another gateway) takes a running Dream with it, so two gateways never
    // write MEMORY.md at once and nothing outlives the scheduler.
    auto worker = self->spawn<caf::detached + caf::linked>(dream_worker,
                                                           std::move(dj));
    st.dream_workers.insert(worker.address());
    timed_request(self, worker, st.cfg.dream_timeout + std::chrono::seconds(60),
                  caf::get_atom::value)
      .then(
        [=](std::string& what) {
          self->state.dream_running = false;
          done("dream: " + what);
        },
        [=](caf::error& err) {
          self->state.dream_running = false;
          done("dream: failed (" + self->system().render(err) + ")");
        });
    return;
  }
  done("system job '" + job.name + "' (" + job.id
       + "): skipped (not a job this gateway knows)");
}

} // namespace nb
