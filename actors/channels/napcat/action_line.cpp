#include "actors/channels/napcat/action_line.hpp"

namespace nb::napcat {

action_result action_line::call(const std::string& action,
                                nlohmann::json params,
                                std::chrono::milliseconds timeout) {
  action_result out;
  std::unique_lock<std::mutex> g{mx_};
  if (!up_) {
    out.error = down_reason_;
    return out;
  }
  auto echo = "nb-" + std::to_string(++next_);
  waiting_[echo] = std::nullopt;
  outgoing_.push_back(nlohmann::json{{"action", action},
                                     {"params", std::move(params)},
                                     {"echo", echo}}
                        .dump());
  if (wake_)
    wake_();
  bool ended = cv_.wait_for(g, timeout, [&] {
    return waiting_[echo].has_value() || failed_.count(echo) > 0;
  });
  if (auto f = failed_.find(echo); f != failed_.end()) {
    out.error = f->second;
    failed_.erase(f);
  } else if (!ended) {
    out.error = "no answer within "
                + std::to_string(timeout.count() / 1000) + " s";
  } else {
    out.answer = std::move(*waiting_[echo]);
  }
  waiting_.erase(echo);
  return out;
}

void action_line::attach(std::function<void()> wake) {
  std::lock_guard<std::mutex> g{mx_};
  up_ = true;
  wake_ = std::move(wake);
}

void action_line::detach(const std::string& why) {
  {
    std::lock_guard<std::mutex> g{mx_};
    up_ = false;
    wake_ = nullptr;
    down_reason_ = "not connected (" + why + ")";
    outgoing_.clear();
    for (auto& [echo, answer] : waiting_)
      if (!answer)
        failed_[echo] = "connection lost before the answer (" + why + ")";
  }
  cv_.notify_all();
}

std::deque<std::string> action_line::take_outgoing() {
  std::lock_guard<std::mutex> g{mx_};
  return std::exchange(outgoing_, {});
}

bool action_line::answer(const std::string& echo, nlohmann::json frame) {
  {
    std::lock_guard<std::mutex> g{mx_};
    auto it = waiting_.find(echo);
    if (it == waiting_.end())
      return false;
    it->second = std::move(frame);
  }
  cv_.notify_all();
  return true;
}

} // namespace nb::napcat
