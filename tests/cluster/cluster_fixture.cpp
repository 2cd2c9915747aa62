#include "tests/cluster/cluster_fixture.hpp"

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include <caf/io/middleman.hpp>

#include "config/load.hpp"
#include "messages/type_ids.hpp"

namespace nb::test {

using nlohmann::json;

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

bool wait_for_count(const child_process& p, const std::string& needle,
                    size_t n, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (count_of(p.err(), needle) >= n)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

loopback_cluster::loopback_cluster(fake_llm& llm, int agents, bool tools_node,
                                   bool verbose, json extra)
  : llm_(llm), agents_count_(agents), tools_node_(tools_node),
    verbose_(verbose) {
  auto gw = "127.0.0.1:" + std::to_string(cluster_port_);
  json timing{{"heartbeatMs", 200}, {"connectionTimeoutMs", 1000}};
  timing.update(extra);
  auto gcl = timing;
  gcl["nodeId"] = "gateway-1";
  gcl["listen"] = gw;
  gateway_cfg_ = write_config("gateway", gcl, (home_.dir / "ws").string());
  for (int i = 1; i <= agents; ++i) {
    auto c = timing;
    c["nodeId"] = "agent-" + std::to_string(i);
    c["listen"] = "127.0.0.1:0";
    c["peers"] = {gw};
    agent_cfgs_.push_back(write_config("agent-" + std::to_string(i), c,
                                       (home_.dir / "ws").string()));
  }
  if (tools_node) {
    auto c = timing;
    c["nodeId"] = "tools-1";
    c["listen"] = "127.0.0.1:0";
    c["peers"] = {gw};
    tools_cfg_ = write_config("tools-1", c, tools_workspace());
  }
}

loopback_cluster::~loopback_cluster() {
  // Members first, so the gateway's shutdown is not waiting on them.
  for (auto& [i, a] : agents_)
    if (a) {
      a->signal(SIGCONT);
      a->signal(SIGTERM);
      a->wait(std::chrono::seconds(10));
    }
  if (tools_) {
    tools_->signal(SIGTERM);
    tools_->wait(std::chrono::seconds(10));
  }
  if (gateway_) {
    gateway_->signal(SIGTERM);
    gateway_->wait(std::chrono::seconds(20));
  }
}

std::string loopback_cluster::extra_agent_config(const std::string& id,
                                                 json cluster) {
  json c{{"heartbeatMs", 200}, {"connectionTimeoutMs", 1000}};
  c.update(cluster);
  c["nodeId"] = id;
  c["listen"] = "127.0.0.1:0";
  c["peers"] = {"127.0.0.1:" + std::to_string(cluster_port_)};
  return write_config(id, c, (home_.dir / "ws").string());
}

std::string loopback_cluster::tools_workspace() const {
  return (home_.dir / "tools-ws").string();
}

std::string loopback_cluster::write_config(const std::string& name,
                                           json cluster,
                                           const std::string& workspace) {
  std::filesystem::create_directories(workspace);
  std::filesystem::create_directories(home_.dir / name);
  auto path = (home_.dir / name / "config.json").string();
  json cfg{{"agents", {{"defaults", {{"workspace", workspace},
                                     {"model", "test-model"}}}}},
           {"providers", {{"custom", {{"apiBase", llm_.base_url()}}}}},
           {"api", {{"port", api_port_}}},
           {"gateway", {{"port", health_port_}, {"schedulerThreads", 2}}},
           {"cluster", cluster}};
  std::ofstream{path} << cfg.dump(2);
  return path;
}

child_process* loopback_cluster::start(std::unique_ptr<child_process>& slot,
                                       const std::string& role,
                                       const std::string& config,
                                       const std::string& ready_log) {
  slot.reset();
  std::vector<std::string> argv{nanobot_binary(), "node", "--role", role, "-c",
                                config};
  if (verbose_)
    argv.push_back("-v");
  slot = std::make_unique<child_process>(
    argv,
    std::filesystem::path{config}.parent_path().string());
  if (!slot->wait_for_log(ready_log, std::chrono::seconds(20)))
    throw std::runtime_error(role + " node did not start: " + slot->err());
  return slot.get();
}

void loopback_cluster::start_gateway() {
  start(gateway_, "gateway", gateway_cfg_, "gateway node gateway-1 ready");
}

void loopback_cluster::start_agent(int i) {
  auto id = "agent-" + std::to_string(i);
  auto before = gateway_ ? count_of(gateway_->err(), "agent node " + id + " takes")
                         : 0;
  start(agents_[i], "agent", agent_cfgs_.at(i - 1), "joined gateway");
  if (gateway_
      && !wait_for_count(*gateway_, "agent node " + id + " takes", before + 1,
                         std::chrono::seconds(10)))
    throw std::runtime_error("the gateway did not take " + id);
}

void loopback_cluster::start_tools() {
  start(tools_, "tools", tools_cfg_, "joined gateway");
}

std::string loopback_cluster::chat(const std::string& session,
                                   const std::string& text,
                                   int timeout_s) const {
  httplib::Client cli{"127.0.0.1", api_port_};
  cli.set_read_timeout(timeout_s, 0);
  json body{{"model", "test-model"},
            {"messages", {{{"role", "user"}, {"content", text}}}},
            {"session_id", session}};
  auto res = cli.Post("/v1/chat/completions", body.dump(), "application/json");
  if (!res || res->status != 200)
    return "";
  auto j = json::parse(res->body, nullptr, false);
  if (j.is_discarded())
    return "";
  return j["choices"][0]["message"]["content"].get<std::string>();
}

httplib::Result loopback_cluster::get(const std::string& path) const {
  httplib::Client cli{"127.0.0.1", health_port_};
  cli.set_read_timeout(10, 0);
  return cli.Get(path.c_str());
}

std::string loopback_cluster::report() const {
  std::vector<std::pair<std::string, const child_process*>> nodes;
  if (gateway_)
    nodes.emplace_back("gateway-1", gateway_.get());
  for (auto& [i, a] : agents_)
    if (a)
      nodes.emplace_back("agent-" + std::to_string(i), a.get());
  if (tools_)
    nodes.emplace_back("tools-1", tools_.get());
  std::string out;
  for (auto& [name, p] : nodes) {
    auto log = p->err();
    out += "== " + name + ": " + std::to_string(count_of(log, "placed on"))
           + " placements; warnings and errors:\n";
    std::istringstream lines{log};
    std::string line;
    while (std::getline(lines, line))
      if (line.find(" warning ") != std::string::npos
          || line.find(" error ") != std::string::npos
          || line.find(" critical ") != std::string::npos)
        out += line + "\n";
    out += "-- log tail:\n" + log.substr(log.size() > 3000 ? log.size() - 3000 : 0)
           + "\n";
  }
  return out;
}

settings loopback_cluster::gateway_settings() const {
  return std::get<loaded_settings>(load_settings(gateway_cfg_)).value;
}

client_system::client_system() {
  cfg.load<caf::io::middleman>();
  // Like a node: the gateway drops a peer it has not heard from for its
  // connection timeout (1 s here), and a client waiting for its first
  // reply sends nothing else.
  cfg.set("middleman.heartbeat-interval",
          caf::timespan{std::chrono::milliseconds(200)});
  cfg.set("scheduler.max-threads", 2);
  cfg.set("logger.verbosity", caf::atom("quiet"));
  register_messages(cfg);
  sys = std::make_unique<caf::actor_system>(cfg);
}

cluster_front_actor client_system::connect(int port) {
  auto front = sys->middleman().remote_actor<cluster_front_actor>("127.0.0.1",
                                                                  port);
  if (!front)
    throw std::runtime_error("cannot reach the front: "
                             + sys->render(front.error()));
  return *front;
}

} // namespace nb::test
