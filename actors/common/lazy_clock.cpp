#include "actors/common/lazy_clock.hpp"

namespace nb {

namespace {

using clock_base = caf::detail::simple_actor_clock;

bool is_ordinary(const clock_base::delayed_event& x, caf::atom_value type) {
  return x.subtype == clock_base::ordinary_timeout_type
         && static_cast<const clock_base::ordinary_timeout&>(x).type == type;
}

bool is_request(const clock_base::delayed_event& x, caf::message_id id) {
  return x.subtype == clock_base::request_timeout_type
         && static_cast<const clock_base::request_timeout&>(x).id == id;
}

} // namespace

template <class Predicate>
void lazy_clock::take(caf::actor_id aid, Predicate pred, dropped& out) {
  auto range = actor_lookup_.equal_range(aid);
  for (auto i = range.first; i != range.second;) {
    if (!pred(*i->second->second)) {
      ++i;
      continue;
    }
    out.push_back(std::move(i->second->second));
    schedule_.erase(i->second);
    i = actor_lookup_.erase(i);
  }
}

void lazy_clock::added(lock& guard, time_point t) {
  if (t >= sleeps_until_)
    return;
  // Looked at again once awake: no second notify meanwhile.
  sleeps_until_ = time_point::min();
  guard.unlock();
  cv_.notify_one();
}

void lazy_clock::set_ordinary_timeout(time_point t, caf::abstract_actor* self,
                                      caf::atom_value type, uint64_t id) {
  dropped old; // an actor has one ordinary timeout per type: it replaces
  lock guard{mx_};
  take(self->id(), [&](auto& x) { return is_ordinary(x, type); }, old);
  super::set_ordinary_timeout(t, self, type, id);
  added(guard, t);
}

void lazy_clock::set_multi_timeout(time_point t, caf::abstract_actor* self,
                                   caf::atom_value type, uint64_t id) {
  lock guard{mx_};
  super::set_multi_timeout(t, self, type, id);
  added(guard, t);
}

void lazy_clock::set_request_timeout(time_point t, caf::abstract_actor* self,
                                     caf::message_id id) {
  lock guard{mx_};
  super::set_request_timeout(t, self, id);
  added(guard, t);
}

void lazy_clock::cancel_ordinary_timeout(caf::abstract_actor* self,
                                         caf::atom_value type) {
  dropped gone;
  lock guard{mx_};
  take(self->id(), [&](auto& x) { return is_ordinary(x, type); }, gone);
}

void lazy_clock::cancel_request_timeout(caf::abstract_actor* self,
                                        caf::message_id id) {
  dropped gone;
  lock guard{mx_};
  take(self->id(), [&](auto& x) { return is_request(x, id); }, gone);
}

void lazy_clock::cancel_timeouts(caf::abstract_actor* self) {
  dropped gone;
  lock guard{mx_};
  take(self->id(), [](auto&) { return true; }, gone);
}

void lazy_clock::schedule_message(time_point t,
                                  caf::strong_actor_ptr receiver,
                                  caf::mailbox_element_ptr content) {
  lock guard{mx_};
  super::schedule_message(t, std::move(receiver), std::move(content));
  added(guard, t);
}

void lazy_clock::schedule_message(time_point t, caf::group target,
                                  caf::strong_actor_ptr sender,
                                  caf::message content) {
  lock guard{mx_};
  super::schedule_message(t, std::move(target), std::move(sender),
                          std::move(content));
  added(guard, t);
}

void lazy_clock::cancel_all() {
  dropped gone;
  lock guard{mx_};
  for (auto& [due, x] : schedule_)
    gone.push_back(std::move(x));
  schedule_.clear();
  actor_lookup_.clear();
}

void lazy_clock::run_dispatch_loop() {
  lock guard{mx_};
  dropped due;
  while (!done_) {
    auto now_is = now();
    if (schedule_.empty() || schedule_.begin()->first > now_is) {
      if (schedule_.empty()) {
        sleeps_until_ = time_point::max();
        cv_.wait(guard);
      } else {
        sleeps_until_ = schedule_.begin()->first;
        cv_.wait_until(guard, sleeps_until_);
      }
      sleeps_until_ = time_point::min();
      continue;
    }
    while (!schedule_.empty() && schedule_.begin()->first <= now_is) {
      auto i = schedule_.begin();
      if (i->second->backlink != actor_lookup_.end())
        actor_lookup_.erase(i->second->backlink);
      due.push_back(std::move(i->second));
      schedule_.erase(i);
    }
    guard.unlock();
    for (auto& x : due)
      ship(*x);
    due.clear();
    guard.lock();
  }
  for (auto& [t, x] : schedule_)
    due.push_back(std::move(x));
  schedule_.clear();
  actor_lookup_.clear();
  guard.unlock();
}

void lazy_clock::cancel_dispatch_loop() {
  {
    lock guard{mx_};
    done_ = true;
  }
  cv_.notify_one();
}

} // namespace nb
