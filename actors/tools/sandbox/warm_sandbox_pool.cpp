#include "actors/tools/sandbox/warm_sandbox_pool.hpp"

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

#include "actors/common/thread_name.hpp"
#include "actors/tools/sandbox/warm_sandbox.hpp"

namespace nb {

using warm_clock = std::chrono::steady_clock;

struct warm_pool_core {
  struct recipe {
    process_options opts;
    sandbox_request req;
    const sandbox_status* status;
  };
  struct waiting {
    std::unique_ptr<warm_sandbox> box;
    std::string place;
    warm_clock::time_point since;
  };

  std::mutex m;
  std::condition_variable cv;
  std::chrono::milliseconds idle;
  size_t most;
  std::deque<recipe> queue;
  std::vector<waiting> ready;
  /// Taken out of `ready` under the lock, torn down by the thread outside
  /// it (never on the call that found them stale).
  std::vector<std::unique_ptr<warm_sandbox>> doomed;
  size_t live = 0; ///< started by the thread and not yet destroyed
  bool closed = false;
  bool running = false;
  warm_sandbox_pool::figures figures;
};

namespace {

using core_ptr = std::shared_ptr<warm_pool_core>;

// The pools' threads are detached: one still starting a sandbox, or
// waiting for a taken one to end, when the process exits would run on
// into the statics exit destroys (seen: a SIGSEGV in slirp's setup after
// main returned). The first thread registers an exit handler that waits,
// at most two seconds, for them all to end; registered after the statics
// they use were made (a cold sandboxed run made them), it runs before
// those are destroyed.
std::mutex threads_m;
std::condition_variable threads_cv;
int threads_running = 0;

void wait_for_pool_threads() {
  std::unique_lock<std::mutex> lk{threads_m};
  threads_cv.wait_for(lk, std::chrono::seconds(2),
                      [] { return threads_running == 0; });
}

void pool_thread_started() {
  static const bool registered = (std::atexit(wait_for_pool_threads), true);
  (void)registered;
  std::lock_guard<std::mutex> g{threads_m};
  ++threads_running;
}

void pool_thread_ended() {
  {
    std::lock_guard<std::mutex> g{threads_m};
    --threads_running;
  }
  threads_cv.notify_all();
}
using box_list = std::vector<std::unique_ptr<warm_sandbox>>;

bool has_key(const warm_pool_core& c, const std::string& key) {
  for (auto& w : c.ready)
    if (w.box->key() == key)
      return true;
  return false;
}

// Moves what must go (idle too long, or everything once closed) to `out`.
void expire_waiting(warm_pool_core& c, box_list& out) {
  auto now = warm_clock::now();
  for (auto it = c.ready.begin(); it != c.ready.end();) {
    if (c.closed || now - it->since >= c.idle) {
      out.push_back(std::move(it->box));
      it = c.ready.erase(it);
      ++c.figures.dropped;
    } else {
      ++it;
    }
  }
  for (auto& d : c.doomed)
    out.push_back(std::move(d));
  c.doomed.clear();
}

// Starts one sandbox for `r` (outside the lock) and files it.
void prepare_one(const core_ptr& c, warm_pool_core::recipe r,
                 std::unique_lock<std::mutex>& lk, box_list& drop) {
  auto probe = sandboxed_options(
    r.opts, r.req, *r.status, sandbox_wants_outbound(r.req, *r.status));
  auto key = warm_launch_key(probe, r.req);
  if (has_key(*c, key))
    return;
  ++c->live;
  // Released when the sandbox is destroyed, wherever that happens: the
  // thread waits for that before it exits.
  std::shared_ptr<void> lease(nullptr, [c](void*) {
    std::lock_guard<std::mutex> g{c->m};
    --c->live;
    c->cv.notify_all();
  });
  lk.unlock();
  std::string error;
  auto box = warm_sandbox::start(std::move(r.opts), r.req, *r.status, error);
  if (box)
    box->hold(std::move(lease));
  lease.reset(); // a sandbox that did not start: released before the lock
  lk.lock();
  if (!box) {
    ++c->figures.failed;
    return;
  }
  ++c->figures.prepared;
  if (c->closed || has_key(*c, box->key())) {
    drop.push_back(std::move(box));
    ++c->figures.dropped;
    return;
  }
  c->ready.push_back({std::move(box), r.req.cwd, warm_clock::now()});
  if (c->ready.size() > c->most) { // the one prepared longest ago goes
    drop.push_back(std::move(c->ready.front().box));
    c->ready.erase(c->ready.begin());
    ++c->figures.dropped;
  }
}

void warm_pool_loop(core_ptr c) {
  name_thread("nb.warm-sandbox");
  std::unique_lock<std::mutex> lk{c->m};
  while (true) {
    box_list drop;
    expire_waiting(*c, drop);
    if (!c->closed && !c->queue.empty()) {
      auto r = std::move(c->queue.front());
      c->queue.pop_front();
      prepare_one(c, std::move(r), lk, drop);
    }
    if (!drop.empty()) {
      lk.unlock();
      drop.clear(); // kills and reaps: outside the lock
      lk.lock();
      continue;
    }
    if (!c->queue.empty() && !c->closed)
      continue;
    if (c->ready.empty() && c->doomed.empty() && c->live == 0) {
      c->running = false;
      pool_thread_ended();
      return;
    }
    if (c->ready.empty() || c->closed) {
      c->cv.wait(lk); // a taken sandbox ending, or new work
    } else {
      auto first = c->ready.front().since;
      for (auto& w : c->ready)
        first = std::min(first, w.since);
      c->cv.wait_until(lk, first + c->idle);
    }
  }
}

} // namespace

warm_sandbox_pool::warm_sandbox_pool(std::chrono::milliseconds idle,
                                     size_t most)
  : core_(std::make_shared<warm_pool_core>()) {
  core_->idle = idle;
  core_->most = std::max<size_t>(1, most);
}

warm_sandbox_pool::~warm_sandbox_pool() {
  close();
}

std::unique_ptr<warm_sandbox>
warm_sandbox_pool::take(const std::string& key, const std::string& place) {
  std::unique_ptr<warm_sandbox> got;
  std::lock_guard<std::mutex> g{core_->m};
  auto& c = *core_;
  for (auto it = c.ready.begin(); it != c.ready.end();) {
    if (!got && it->box->key() == key) {
      got = std::move(it->box);
      ++c.figures.taken;
    } else if (it->place == place) {
      // The same place under another launch: what it shows (or masks) is
      // no longer what a command here must see.
      c.doomed.push_back(std::move(it->box));
      ++c.figures.dropped;
    } else {
      ++it;
      continue;
    }
    it = c.ready.erase(it);
  }
  if (!c.doomed.empty())
    c.cv.notify_all();
  return got;
}

void warm_sandbox_pool::prepare(process_options opts, sandbox_request req,
                                const sandbox_status& status) {
  opts.cancelled = nullptr;
  opts.started = nullptr;
  std::lock_guard<std::mutex> g{core_->m};
  auto& c = *core_;
  if (c.closed)
    return;
  c.queue.push_back({std::move(opts), std::move(req), &status});
  if (c.queue.size() > c.most)
    c.queue.pop_front();
  if (c.running) {
    c.cv.notify_all();
    return;
  }
  pool_thread_started();
  try {
    std::thread{warm_pool_loop, core_}.detach();
    c.running = true;
  } catch (const std::system_error&) {
    pool_thread_ended();
    c.queue.clear(); // no thread: the calls stay cold
  }
}

void warm_sandbox_pool::close() {
  std::lock_guard<std::mutex> g{core_->m};
  auto& c = *core_;
  c.closed = true;
  c.queue.clear();
  for (auto& w : c.ready) {
    c.doomed.push_back(std::move(w.box));
    ++c.figures.dropped;
  }
  c.ready.clear();
  c.cv.notify_all();
}

warm_sandbox_pool::figures warm_sandbox_pool::counters() const {
  std::lock_guard<std::mutex> g{core_->m};
  auto f = core_->figures;
  for (auto& w : core_->ready) {
    f.waiting.push_back(w.box->pid());
    if (w.box->network_pid() > 0)
      f.waiting.push_back(w.box->network_pid());
  }
  f.thread_running = core_->running;
  return f;
}

process_result run_sandboxed_warm(process_options opts,
                                  const sandbox_request& req,
                                  const sandbox_status& status,
                                  warm_sandbox_pool* pool) {
  if (!pool || !warm_launch_fits(opts))
    return run_sandboxed(std::move(opts), req, status);
  auto next = opts;
  // The launch as a cold run would start it now: only a sandbox started
  // with exactly that may take the command.
  auto cold = sandboxed_options(opts, req, status,
                                sandbox_wants_outbound(req, status));
  std::optional<process_result> r;
  if (auto box = pool->take(warm_launch_key(cold, req), req.cwd))
    r = box->run(opts.argv.back(), opts);
  if (!r)
    r = run_sandboxed(std::move(opts), req, status);
  pool->prepare(std::move(next), req, status);
  return std::move(*r);
}

} // namespace nb
