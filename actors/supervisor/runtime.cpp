#include "actors/supervisor/runtime.hpp"

#include <stdexcept>
#include <thread>

#include <caf/scoped_actor.hpp>

#include "actors/common/aout_printer.hpp"
#include "actors/common/handoff_sharing.hpp"
#include "actors/common/log.hpp"
#include "actors/memory_index/memory_directory.hpp"
#include "actors/session/session.hpp"
#include "actors/store/lease.hpp"
#include "actors/store/session_files.hpp"
#include "actors/supervisor/supervisor.hpp"
#include "actors/tools/sandbox/config_workspace.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"
#include "config/cluster_config.hpp"
#include "config/memory_config.hpp"
#include "config/onboard.hpp"
#include "messages/type_ids.hpp"

namespace nb {

int64_t process_start_us() {
  static const int64_t at = now_us();
  return at;
}

runtime::runtime(const settings& cfg, bool background)
    : runtime(cfg, background, runtime_hooks{}) {}

runtime::runtime(const settings& cfg, bool background, runtime_hooks hooks) {
  auto started = process_start_us();
  // Every listed agent has a workspace before its first session (here, on
  // the starting thread: no actor runs yet).
  for (const auto& a : cfg.agents) {
    auto agent = cfg.for_agent(a.id);
    onboard_report made;
    fill_workspace(agent.workspace_path(), made);
    for (const auto& e : made.errors)
      log::get("gateway")->error("agent {}: {}", a.id, e);
    // A workspace that is the config dir (a listed agent's; main's is
    // refused below): config.json's saves keep the inode exec's sandbox
    // masks from before any command can run, and the log says what an
    // editor's rename would still show (config_workspace.hpp).
    if (agent.tools.exec.enable && exec_sandboxed(agent))
      if (auto note = prepare_config_workspace(agent.workspace_path(),
                                               cfg.config_path);
          !note.empty())
        log::get("gateway")->warn("agent {}: {}", a.id, note);
  }
  auto dir = resolve_sessions_dir(cfg);
  if (!dir)
    throw std::runtime_error("cannot prepare the session directory: "
                             + caf::to_string(dir.error()));
  // Idle CPU near zero: workers sleep on a condition variable, and a
  // hand-off between actors wakes no second worker (handoff_sharing.hpp).
  auto threads = cfg.gateway.scheduler_threads > 0
                   ? cfg.gateway.scheduler_threads
                   : static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  use_handoff_scheduler(cfg_, threads);
  cfg_.set("logger.verbosity", caf::atom("quiet"));
  register_messages(cfg_);
  if (hooks.prepare)
    if (auto problem = hooks.prepare(cfg_); !problem.empty())
      throw std::runtime_error(problem);
  sys_ = std::make_unique<caf::actor_system>(cfg_);
  end_aout_printer(*sys_);
  // sessionStore: files (default) or PostgreSQL, from the same config file.
  auto cc = load_cluster_config(cfg.config_path);
  if (auto* err = std::get_if<config_error>(&cc))
    throw std::runtime_error(err->message());
  auto& cluster = std::get<cluster_config>(cc);
  auto mem = load_memory_config(cfg.config_path);
  if (auto* err = std::get_if<config_error>(&mem))
    throw std::runtime_error(err->message());
  for (auto& w : std::get<memory_settings>(mem).warnings)
    log::get("gateway")->warn("{}", w);
  supervisor_options opts;
  opts.background = background;
  opts.store_dsn = cluster.session_store == "postgres"
                     ? cluster.session_store_dsn
                     : std::string{};
  leases_ = spawn_lease_keeper(*sys_, *dir, opts.store_dsn);
  opts.leases = leases_;
  opts.schedules.owner = cluster.cluster.node_id.empty()
                           ? default_lease_owner()
                           : cluster.cluster.node_id;
  opts.schedules.ttl_ms = cluster.cluster.schedules_lease_ms;
  if (background)
    lease_owner_ = opts.schedules.owner;
  opts.entry = std::move(hooks.entry);
  supervisor_ = sys_->spawn(supervisor_impl, cfg, *dir, started,
                            std::move(opts));
  caf::scoped_actor self{*sys_};
  self->request(supervisor_, std::chrono::seconds(30), caf::get_atom::value)
    .receive(
      [&](router_actor& r, session_services& s) {
        router_ = std::move(r);
        svc_ = std::move(s);
      },
      [&](caf::error& err) {
        throw std::runtime_error("the actor tree did not start: "
                                 + sys_->render(err));
      });
  // Semantic memory: an idle directory; each workspace's index (a thread
  // and its SQLite file) starts on first use.
  spawn_memory_directory(*sys_, cfg, std::get<memory_settings>(mem),
                         svc_.stats, cfg.workspace_path());
  log::get("gateway")->info("actor system up: {} scheduler threads (hand-off sharing), "
                            "sessions in {}", threads, *dir);
}

runtime::~runtime() {
  shutdown(std::chrono::seconds(0));
}

void runtime::drain(std::chrono::seconds limit) {
  if (drained_ || stopped_)
    return;
  drained_ = true;
  if (limit.count() <= 0 || !router_)
    return;
  caf::scoped_actor self{*sys_};
  self->request(router_, limit, flush_atom::value)
    .receive([](int32_t) {},
             [&](caf::error& err) {
               log::get("gateway")->warn("turns still running after the {} s "
                                         "drain are cancelled: {}",
                                         limit.count(), sys_->render(err));
             });
}

void runtime::shutdown(std::chrono::seconds drain_limit) {
  if (stopped_)
    return;
  drain(drain_limit);
  stopped_ = true;
  stop_memory_directory(*sys_);
  // Links carry the supervisor's exit to every service; telling each one
  // directly as well keeps shutdown independent of how a service links its
  // own workers.
  for (auto a : {caf::actor_cast<caf::actor>(supervisor_),
                 caf::actor_cast<caf::actor>(router_),
                 caf::actor_cast<caf::actor>(svc_.outbox),
                 caf::actor_cast<caf::actor>(svc_.tools),
                 caf::actor_cast<caf::actor>(svc_.provider),
                 caf::actor_cast<caf::actor>(svc_.store),
                 caf::actor_cast<caf::actor>(svc_.stats)})
    if (a)
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  if (leases_) {
    // Cron and the heartbeat are stopping: a gateway on standby may take
    // the schedules over now rather than after the lease's TTL.
    if (!lease_owner_.empty()) {
      caf::scoped_actor self{*sys_};
      self->request(leases_, std::chrono::seconds(2), unlease_atom::value,
                    std::string{schedules_lease}, lease_owner_)
        .receive([](caf::ok_atom) {}, [](caf::error&) {});
    }
    caf::anon_send_exit(leases_, caf::exit_reason::user_shutdown);
  }
  for (int i = 0; i < 50 && sys_->registry().running() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (auto n = sys_->registry().running(); n > 0)
    log::get("gateway")->warn("{} actor(s) still running at shutdown", n);
  router_ = nullptr;
  leases_ = nullptr;
  svc_ = session_services{};
  supervisor_ = nullptr;
  sys_.reset(); // waits for every actor to finish
}

} // namespace nb
