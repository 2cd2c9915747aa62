#include "actors/browser/cdp.hpp"

#include <cerrno>
#include <cstring>

#include <poll.h>
#include <unistd.h>

namespace nb {

using json = nlohmann::json;

void cdp_connection::attach(int write_fd, int read_fd) {
  write_fd_ = write_fd;
  read_fd_ = read_fd;
  inbox_.clear();
  answers_.clear();
  waiting_.clear();
}

void cdp_connection::detach() {
  write_fd_ = read_fd_ = -1;
  inbox_.clear();
  answers_.clear();
}

int64_t cdp_connection::send(const std::string& method, const json& params,
                             const std::string& session) {
  if (write_fd_ < 0)
    throw cdp_error(cdp_failure::crashed, "the browser is not running");
  auto id = next_id_++;
  json msg{{"id", id}, {"method", method}, {"params", params}};
  if (!session.empty())
    msg["sessionId"] = session;
  auto text = msg.dump(-1, ' ', false, json::error_handler_t::replace);
  text.push_back('\0');
  size_t done = 0;
  while (done < text.size()) {
    auto n = ::write(write_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw cdp_error(cdp_failure::crashed,
                      std::string{"the browser's pipe closed: "}
                        + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return id;
}

json cdp_connection::call(const std::string& method, const json& params,
                          const std::string& session,
                          std::chrono::milliseconds timeout) {
  auto id = send(method, params, session);
  waiting_.insert(id);
  struct forget {
    std::set<int64_t>& w;
    int64_t id;
    ~forget() {
      w.erase(id);
    }
  } f{waiting_, id};
  pump_until(clock::now() + timeout, [&] { return answers_.count(id) > 0; });
  auto it = answers_.find(id);
  if (it == answers_.end())
    throw cdp_error(cdp_failure::timeout,
                    method + " got no answer within "
                      + std::to_string(timeout.count() / 1000) + " s");
  auto answer = std::move(it->second);
  answers_.erase(it);
  if (answer.contains("error")) {
    auto& e = answer["error"];
    throw cdp_error(cdp_failure::protocol,
                    method + ": " + e.value("message", std::string{"error"})
                      + (e.contains("data") && e["data"].is_string()
                           ? " (" + e["data"].get<std::string>() + ")"
                           : std::string{}));
  }
  return answer.value("result", json::object());
}

void cdp_connection::pump_until(clock::time_point until,
                                const std::function<bool()>& done) {
  for (;;) {
    if (done && done())
      return;
    if (cancelled_ && cancelled_())
      throw cdp_error(cdp_failure::cancelled, "stopped by /stop");
    auto now = clock::now();
    if (now >= until)
      return;
    // Short slices, so /stop is heard within 50 ms.
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - now);
    read_some(std::min(left, std::chrono::milliseconds(50)));
  }
}

void cdp_connection::read_some(std::chrono::milliseconds wait) {
  if (read_fd_ < 0)
    throw cdp_error(cdp_failure::crashed, "the browser is not running");
  pollfd p{read_fd_, POLLIN, 0};
  int r = ::poll(&p, 1, static_cast<int>(wait.count()));
  if (r < 0 && errno == EINTR)
    return;
  if (r <= 0)
    return;
  char buf[65536];
  auto n = ::read(read_fd_, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0)
    throw cdp_error(cdp_failure::crashed, "Chromium closed the pipe");
  inbox_.append(buf, static_cast<size_t>(n));
  size_t start = 0;
  for (;;) {
    auto nul = inbox_.find('\0', start);
    if (nul == std::string::npos)
      break;
    dispatch(std::string_view{inbox_}.substr(start, nul - start));
    start = nul + 1;
  }
  inbox_.erase(0, start);
}

void cdp_connection::dispatch(std::string_view text) {
  auto msg = json::parse(text, nullptr, false);
  if (!msg.is_object())
    return;
  if (auto id = msg.find("id"); id != msg.end() && id->is_number_integer()) {
    // Answers to fire-and-forget commands (Fetch.continueRequest) go.
    auto n = id->get<int64_t>();
    if (waiting_.count(n))
      answers_[n] = std::move(msg);
    return;
  }
  if (on_event_)
    on_event_(msg);
}

} // namespace nb
