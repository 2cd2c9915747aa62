#include "tests/crash/crash_home.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <httplib.h>

#include "config/load.hpp"

namespace nb::test {

using nlohmann::json;

crash_home::crash_home(const fake_llm& llm, json extra) {
  config = (home.dir / "config.json").string();
  json cfg{{"agents",
            {{"defaults",
              {{"workspace", (home.dir / "ws").string()},
               {"model", "test-model"},
               {"idleCompactAfterMinutes", 0}}}}},
           {"providers", {{"custom", {{"apiBase", llm.base_url()}}}}},
           {"api", {{"port", api_port}}},
           // A short drain: the SIGTERM proofs stop during a model call
           // that outlasts it.
           {"gateway", {{"port", gateway_port}, {"drainSeconds", 2}}}};
  cfg.merge_patch(extra);
  std::filesystem::create_directories(home.dir / "ws");
  std::ofstream{config} << cfg.dump(2);
}

settings crash_home::loaded() const {
  return std::get<loaded_settings>(load_settings(config)).value;
}

child_process crash_home::start_gateway() const {
  return child_process{{nanobot_binary(), "gateway", "-c", config},
                       home.dir.string()};
}

child_process crash_home::start_ready() const {
  auto gw = start_gateway();
  if (!gw.wait_for_log("gateway ready", std::chrono::seconds(20)))
    throw std::runtime_error("the gateway did not start: " + gw.err());
  return gw;
}

int64_t crash_home::gauge(const std::string& name) const {
  return gauge_at(gateway_port, name);
}

int64_t gauge_at(int port, const std::string& name) {
  httplib::Client cli{"127.0.0.1", port};
  cli.set_connection_timeout(1, 0);
  cli.set_read_timeout(2, 0);
  auto r = cli.Get("/stats");
  if (!r || r->status != 200)
    return -1;
  auto doc = json::parse(r->body, nullptr, false);
  if (!doc.is_object() || !doc.contains("gauges")
      || !doc["gauges"].contains(name))
    return -1;
  return doc["gauges"][name].get<int64_t>();
}

std::vector<std::string> crash_home::user_texts(const std::string& key) const {
  std::vector<std::string> out;
  for (auto& m : session_messages(loaded(), key))
    if (m.value("role", "") == "user" && m.contains("content")
        && m["content"].is_string())
      out.push_back(m["content"].get<std::string>());
  return out;
}

int occurrences(const std::vector<std::string>& texts, const std::string& text) {
  int n = 0;
  for (auto& t : texts)
    n += t == text ? 1 : 0;
  return n;
}

std::vector<std::string> model_saw(const fake_llm& llm) {
  std::vector<std::string> out;
  for (auto& r : llm.requests()) {
    if (!r.body.is_object() || !r.body.contains("messages"))
      continue;
    for (auto& m : r.body["messages"])
      if (m.value("role", "") == "user" && m.contains("content")
          && m["content"].is_string())
        out.push_back(m["content"].get<std::string>());
  }
  return out;
}

bool wait_model_saw(const fake_llm& llm, const std::vector<std::string>& texts,
                    std::chrono::milliseconds timeout) {
  return eventually(
    [&] {
      auto saw = model_saw(llm);
      for (auto& t : texts) {
        bool found = false;
        // The runtime block follows the user's text in the model's copy
        // (and a platform may add to it, as Email's subject line).
        for (auto& s : saw)
          if (s.find(t) != std::string::npos) {
            found = true;
            break;
          }
        if (!found)
          return false;
      }
      return true;
    },
    timeout);
}

fake_response stalled_answer() {
  auto r = stream_text({"thinking"});
  r.stall = true;
  return r;
}

} // namespace nb::test
