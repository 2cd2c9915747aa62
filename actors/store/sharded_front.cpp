#include "actors/store/sharded_front.hpp"

#include <memory>

#include <caf/all.hpp>

#include "actors/common/clock.hpp"

namespace nb {

namespace {

using front_ptr = sharded_front_actor::stateful_pointer<sharded_front_state>;

size_t shard_of(front_ptr self, const std::string& key) {
  return std::hash<std::string>{}(key) % self->state.shards.size();
}

void tick_later(front_ptr self) {
  auto& st = self->state;
  if (st.ticking)
    return;
  st.ticking = true;
  self->delayed_send(self, st.idle_limit / 2, store_idle_atom::value);
}

store_worker_actor& running(front_ptr self, size_t i) {
  return (*self->state.workers)[i];
}

const store_worker_actor& worker_of(front_ptr self, size_t i) {
  auto& w = running(self, i);
  if (!w) {
    w = self->state.spawn_worker();
    tick_later(self);
  }
  return w;
}

/// Hands `m` to shard `i`'s worker (started when none runs); while that
/// worker ends, `m` waits for its successor.
template <class T, class Msg>
caf::result<T> dispatch(front_ptr self, size_t i, Msg m) {
  auto& sh = self->state.shards[i];
  sh.last_use_ms = steady_ms();
  if (sh.retiring) {
    auto rp = self->make_response_promise<T>();
    sh.held.emplace_back(
      [rp, m = std::move(m)](const store_worker_actor& w) mutable {
        rp.delegate(w, std::move(m));
      });
    return rp;
  }
  return self->delegate(worker_of(self, i), std::move(m));
}

/// dispatch() by the message's key (taken before the message moves on).
template <class T, class Msg>
caf::result<T> dispatch_by_key(front_ptr self, Msg& m) {
  auto i = shard_of(self, m.key);
  return dispatch<T>(self, i, std::move(m));
}

/// The worker of shard `i` answered its retire request (or died): its
/// successor, if requests wait, takes them in their order.
void retired(front_ptr self, size_t i) {
  auto& sh = self->state.shards[i];
  running(self, i) = nullptr;
  sh.retiring = false;
  if (sh.held.empty())
    return;
  auto held = std::move(sh.held);
  sh.held.clear();
  auto& w = worker_of(self, i);
  for (auto& hand_on : held)
    hand_on(w);
}

void retire(front_ptr self, size_t i) {
  self->state.shards[i].retiring = true;
  auto w = running(self, i);
  // No timeout: every request the worker holds must be answered before
  // its shard takes another (a second worker would break the key's order).
  self->request(w, caf::infinite, store_retire_atom::value)
    .then([self, i](caf::ok_atom) { retired(self, i); },
          [self, i](caf::error&) { retired(self, i); });
}

} // namespace

sharded_front_actor::behavior_type
sharded_front_impl(front_ptr self, int count,
                   std::function<store_worker_actor()> spawn_worker,
                   std::chrono::milliseconds idle_limit, stats_actor stats) {
  auto& st = self->state;
  auto n = static_cast<size_t>(std::max(count, 1));
  st.shards.resize(n);
  st.workers = std::make_shared<std::vector<store_worker_actor>>(n);
  st.spawn_worker = std::move(spawn_worker);
  st.idle_limit = std::max(idle_limit, std::chrono::milliseconds(2));
  st.meter.start(self, "store", std::move(stats));
  // A detached worker's thread keeps it alive, so the front must stop the
  // ones running when it ends.
  self->attach_functor([ws = st.workers](const caf::error&) {
    for (auto& w : *ws)
      if (w)
        caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  return {
    [=](session_load& m) {
      auto t = self->state.meter.measure();
      return dispatch_by_key<session_snapshot>(self, m);
    },
    [=](session_append& m) {
      auto t = self->state.meter.measure();
      return dispatch_by_key<caf::ok_atom>(self, m);
    },
    [=](session_replace& m) {
      auto t = self->state.meter.measure();
      return dispatch_by_key<caf::ok_atom>(self, m);
    },
    [=](session_list& m) {
      auto t = self->state.meter.measure();
      return dispatch<session_listing>(self, 0, std::move(m));
    },
    [=](session_catalog_request& m) {
      auto t = self->state.meter.measure();
      return dispatch<session_catalog>(self, 0, std::move(m));
    },
    // By key, like every write: in order with that session's own writes.
    [=](session_patch& m) {
      auto t = self->state.meter.measure();
      return dispatch_by_key<caf::ok_atom>(self, m);
    },
    [=](session_remove& m) {
      auto t = self->state.meter.measure();
      return dispatch_by_key<caf::ok_atom>(self, m);
    },
    [=](store_idle_atom) {
      auto& st = self->state;
      st.ticking = false;
      auto now = steady_ms();
      bool any = false;
      for (size_t i = 0; i < st.shards.size(); ++i) {
        auto& sh = st.shards[i];
        bool alive = running(self, i) && !sh.retiring;
        if (alive && now - sh.last_use_ms >= st.idle_limit.count()) {
          retire(self, i);
          alive = false;
        }
        any = any || alive;
      }
      if (any)
        tick_later(self);
    },
  };
}

} // namespace nb
