// The fake's server: httplib on its own thread, scripted answers, records.
#include "tests/support/fake_llm.hpp"

#include "tests/support/fake_anthropic.hpp"
#include "tests/support/fake_llm_key.hpp"
#include "tests/support/fake_openai_responses.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <sys/socket.h>

#include <httplib.h>

namespace nb::test {

using json = nlohmann::json;
using std::chrono::milliseconds;

namespace {

// require_key() lives beside the class (fake_llm_key.hpp) so that the
// header ~80 tests include stays as it was: the keys wait here, by port.
std::mutex keys_mtx;
std::map<int, std::string> keys_by_port;

std::string key_for(int port) {
  std::lock_guard<std::mutex> guard{keys_mtx};
  auto i = keys_by_port.find(port);
  return i == keys_by_port.end() ? std::string{} : i->second;
}

} // namespace

struct fake_llm::impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::atomic<bool> stopping{false};
  mutable std::mutex mtx;
  std::deque<fake_response> script;
  responder fallback = &fake_llm::echo;
  responder anthropic_fallback = &anthropic::echo;
  responder responses_fallback = &responses::echo;
  std::vector<recorded_request> log;
  size_t active = 0;
  size_t peak = 0;
  /// OpenAI's answer to a wrong key (status 401, its own words), or
  /// nothing when the caller's key is right.
  bool refused(const httplib::Request& req, httplib::Response& res) {
    auto want = key_for(port);
    if (want.empty())
      return false;
    auto auth = req.get_header_value("Authorization");
    auto given = auth.rfind("Bearer ", 0) == 0 ? auth.substr(7)
                                               : req.get_header_value("x-api-key");
    if (given == want)
      return false;
    auto shown = given.size() > 4 ? given.substr(0, 2) + "***"
                                      + given.substr(given.size() - 2)
                                  : std::string{"***"};
    json body{{"error",
               {{"message", "Incorrect API key provided: " + shown
                              + ". You can find your API key at "
                                "https://platform.openai.com/account/api-keys."},
                {"type", "invalid_request_error"},
                {"param", nullptr},
                {"code", "invalid_api_key"}}}};
    res.status = 401;
    res.set_content(body.dump(), "application/json");
    return true;
  }

  /// Waits `d`, sending pings if asked; false when stopping or the client
  /// left (a ping could not be written).
  bool wait(milliseconds d, milliseconds ping_every, httplib::DataSink* sink) {
    auto until = std::chrono::steady_clock::now() + d;
    auto next_ping = std::chrono::steady_clock::now() + ping_every;
    while (std::chrono::steady_clock::now() < until) {
      if (stopping)
        return false;
      if (sink && ping_every.count() > 0
          && std::chrono::steady_clock::now() >= next_ping) {
        static constexpr char ping[] = ": ping\n\n";
        if (!sink->write(ping, sizeof(ping) - 1))
          return false;
        next_ping += ping_every;
      }
      std::this_thread::sleep_for(milliseconds{5});
    }
    return !stopping;
  }

  void begin(const httplib::Request& req) {
    recorded_request r{req.method, req.path, {}, nullptr, req.body,
                       req.remote_port};
    for (auto& [k, v] : req.headers) {
      std::string name = k;
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      r.headers[name] = v;
    }
    r.body = json::parse(req.body, nullptr, false);
    if (r.body.is_discarded())
      r.body = nullptr;
    std::lock_guard<std::mutex> guard{mtx};
    log.push_back(std::move(r));
    peak = std::max(peak, ++active);
  }

  void end() {
    std::lock_guard<std::mutex> guard{mtx};
    --active;
  }

  /// Which API a request came to: each has its own default responder.
  enum class api { chat, messages, responses };

  fake_response next(const json& body, api which) {
    responder f;
    {
      std::lock_guard<std::mutex> guard{mtx};
      if (!script.empty()) {
        auto r = std::move(script.front());
        script.pop_front();
        return r;
      }
      f = which == api::messages    ? anthropic_fallback
          : which == api::responses ? responses_fallback
                                    : fallback;
    }
    return f(body);
  }

  void answer(const httplib::Request& req, httplib::Response& res, api which) {
    begin(req);
    if (refused(req, res)) {
      end();
      return;
    }
    auto body = json::parse(req.body, nullptr, false);
    auto r = next(body.is_discarded() ? json{} : body, which);
    if (!wait(r.delay, milliseconds{0}, nullptr)) {
      res.status = 503;
      end();
      return;
    }
    res.status = r.status;
    for (auto& [k, v] : r.headers)
      res.set_header(k, v);
    if (r.events.empty()) {
      res.set_content(r.body, r.content_type);
      end();
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
      r.content_type,
      [this, r](size_t, httplib::DataSink& sink) {
        for (size_t i = 0; i < r.events.size(); ++i) {
          if (i > 0 && !wait(r.event_delay, r.ping_every, &sink))
            return false;
          if (!sink.write(r.events[i].data(), r.events[i].size()))
            return false;
        }
        if (r.cut)
          return false; // httplib closes the connection mid-body
        if (r.stall) {
          // Hold the connection without ending the body; a bound keeps a
          // forgotten client from pinning a thread forever.
          wait(milliseconds{60'000}, r.ping_every, &sink);
          return false;
        }
        sink.done();
        return true;
      },
      [this](bool) { end(); });
  }
};

fake_llm::fake_llm(int port, size_t threads) : impl_(std::make_unique<impl>()) {
  auto& d = *impl_;
  d.server.new_task_queue = [threads] {
    return new httplib::ThreadPool(std::max<size_t>(threads, 8));
  };
  d.server.set_tcp_nodelay(true);
  int listen_fd = -1;
  d.server.set_socket_options([&listen_fd](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd = fd;
  });
  d.server.Post(R"((/.*)?/chat/completions)",
                [&d](const httplib::Request& req, httplib::Response& res) {
                  d.answer(req, res, impl::api::chat);
                });
  d.server.Post(R"((/.*)?/messages)",
                [&d](const httplib::Request& req, httplib::Response& res) {
                  d.answer(req, res, impl::api::messages);
                });
  d.server.Post(R"((/.*)?/responses)",
                [&d](const httplib::Request& req, httplib::Response& res) {
                  d.answer(req, res, impl::api::responses);
                });
  d.server.Get(R"((/.*)?/models)",
               [&d](const httplib::Request& req, httplib::Response& res) {
                 if (d.refused(req, res))
                   return;
                 res.set_content(
                   R"({"object":"list","data":[{"id":"fake-model"}]})",
                   "application/json");
               });
  d.port = port == 0 ? d.server.bind_to_any_port("127.0.0.1")
                     : (d.server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (d.port <= 0)
    throw std::runtime_error("fake_llm: cannot listen on 127.0.0.1:"
                             + std::to_string(port));
  // httplib listens with a backlog of 5, which loses connection bursts.
  ::listen(listen_fd, 1024);
  d.thread = std::thread{[&d] { d.server.listen_after_bind(); }};
  while (!d.server.is_running())
    std::this_thread::sleep_for(milliseconds{1});
}

fake_llm::~fake_llm() {
  stop();
  std::lock_guard<std::mutex> guard{keys_mtx};
  keys_by_port.erase(impl_->port);
}

void fake_llm::stop() {
  auto& d = *impl_;
  d.stopping = true;
  d.server.stop();
  if (d.thread.joinable())
    d.thread.join();
}

int fake_llm::port() const {
  return impl_->port;
}

std::string fake_llm::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1";
}

void fake_llm::push(fake_response r) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  impl_->script.push_back(std::move(r));
}

void require_key(fake_llm& llm, std::string key) {
  std::lock_guard<std::mutex> guard{keys_mtx};
  keys_by_port[llm.port()] = std::move(key);
}

void fake_llm::set_responder(responder r) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  impl_->fallback = std::move(r);
}

void fake_llm::set_anthropic_responder(responder r) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  impl_->anthropic_fallback = std::move(r);
}

void fake_llm::set_responses_responder(responder r) {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  impl_->responses_fallback = std::move(r);
}

size_t fake_llm::request_count() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->log.size();
}

std::vector<recorded_request> fake_llm::requests() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->log;
}

size_t fake_llm::max_concurrent() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->peak;
}

size_t fake_llm::active() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->active;
}

size_t fake_llm::queued() const {
  std::lock_guard<std::mutex> guard{impl_->mtx};
  return impl_->script.size();
}

fake_response fake_llm::echo(const json& body) {
  std::string said;
  if (body.is_object() && body.contains("messages")
      && body["messages"].is_array()) {
    for (auto& m : body["messages"]) {
      if (!m.is_object() || !m.contains("role") || m["role"] != "user"
          || !m.contains("content"))
        continue;
      said.clear();
      auto& c = m["content"];
      if (c.is_string())
        said = c.get<std::string>();
      else if (c.is_array())
        for (auto& part : c)
          if (part.is_object() && part.contains("text")
              && part["text"].is_string())
            said += part["text"].get<std::string>();
    }
  }
  bool stream = body.is_object() && body.contains("stream")
                && body["stream"] == true;
  return stream ? stream_text({"echo: ", said}) : text("echo: " + said);
}

} // namespace nb::test
