#include "actors/cron/cron_io.hpp"

namespace nb {

void cron_io_queue(cron_pointer self, std::function<void()> start) {
  auto& st = self->state;
  if (st.io_busy) {
    st.io_waiting.push_back(std::move(start));
    return;
  }
  st.io_busy = true;
  start();
}

void cron_io_done(cron_pointer self) {
  auto& st = self->state;
  if (st.io_waiting.empty()) {
    st.io_busy = false;
    return;
  }
  auto next = std::move(st.io_waiting.front());
  st.io_waiting.pop_front();
  next();
}

} // namespace nb
