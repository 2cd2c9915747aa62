#include "actors/channels/whatsapp/bridge_outbox.hpp"

#include <algorithm>

namespace nb::whatsapp {

std::string bridge_outbox::submit(nlohmann::json frame,
                                  std::chrono::milliseconds timeout) {
  auto cmd = std::make_shared<bridge_command>();
  std::unique_lock<std::mutex> g{mx_};
  if (!wake_)
    return down_why_;
  cmd->msg_id = "nb-" + std::to_string(++next_id_);
  frame["msg_id"] = cmd->msg_id; // echoed by bridges that know it
  cmd->frame = std::move(frame);
  queue_.push_back(cmd);
  // Under the lock: once detach() returned, the connection is not woken
  // (its socket may be gone).
  wake_();
  if (cv_.wait_for(g, timeout, [&] { return cmd->done; }))
    return cmd->error;
  // Still queued: it never goes out. In flight: the connection keeps it
  // until the bridge answers, so a late `sent` is not taken for the next.
  auto q = std::find(queue_.begin(), queue_.end(), cmd);
  if (q != queue_.end()) {
    queue_.erase(q);
    return "the bridge connection did not take the message in time";
  }
  return "no acknowledgement from the bridge within "
         + std::to_string(timeout.count() / 1000) + " s";
}

void bridge_outbox::attach(std::function<void()> wake) {
  std::lock_guard<std::mutex> g{mx_};
  wake_ = std::move(wake);
}

void bridge_outbox::detach(const std::string& why) {
  std::lock_guard<std::mutex> g{mx_};
  wake_ = nullptr;
  down_why_ = "bridge not connected (" + why + ")";
  for (auto* list : {&queue_, &in_flight_}) {
    for (auto& c : *list) {
      c->done = true;
      c->error = "bridge connection lost: " + why;
    }
    list->clear();
  }
  cv_.notify_all();
}

std::shared_ptr<bridge_command> bridge_outbox::next() {
  std::lock_guard<std::mutex> g{mx_};
  if (queue_.empty())
    return nullptr;
  auto c = queue_.front();
  queue_.pop_front();
  in_flight_.push_back(c);
  return c;
}

void bridge_outbox::finish(const std::shared_ptr<bridge_command>& cmd,
                           std::string error) {
  std::lock_guard<std::mutex> g{mx_};
  auto it = std::find(in_flight_.begin(), in_flight_.end(), cmd);
  if (it != in_flight_.end())
    in_flight_.erase(it);
  cmd->done = true;
  cmd->error = std::move(error);
  cv_.notify_all();
}

} // namespace nb::whatsapp
