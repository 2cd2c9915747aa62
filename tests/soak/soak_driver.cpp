// soak_driver: runs a real gateway (child process) under a steady mixed load
// for a number of minutes and samples its RSS, threads, open fds and inbox
// journal size. The stand-ins are the test fakes (scripted LLM, Telegram
// Bot API); everything else is the real executable over real sockets.
//
//   soak_driver --minutes 60 --out DIR [--sample-seconds 60]
//               [--context-window TOKENS]
//   NB_SOAK_WRAP="heaptrack -o DIR/heap" soak_driver ...  (a heap profile)
//
// A small context window (run.sh: 4096) makes the chats archive within
// minutes, as a long-lived chat does over weeks: the steady state of a
// gateway that runs for months is reached within the run.
//
// Load, per second on average: 1 plain API turn, 0.5 streamed API turn,
// 0.33 API turn with tool calls (write_file, read_file, exec), 1 Telegram
// message (10 chats), 1 WebSocket message (2 connections), and a cron job
// firing every 10 s. Writes DIR/samples.csv (one line per sample) and
// prints a summary: growth after warm-up (the first fifth of the run).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/integration/child_process.hpp"
#include "tests/platforms/fake_telegram.hpp"
#include "tests/soak/flag_pairs.hpp"
#include "tests/soak/proc_figures.hpp"
#include "tests/support/proc_scan.hpp"
#include "tests/support/fake_llm.hpp"
#include "tests/websocket/ws_client.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace nb::test;
using clock_type = std::chrono::steady_clock;

namespace {

struct options {
  double minutes = 60;
  int sample_s = 60;
  std::string out = "soak-out";
  int context_window = 0; ///< 0: the gateway's default
};

options parse(int argc, char** argv) {
  options o;
  for (auto& [name, value] : nb::soak::flag_pairs(argc, argv)) {
    if (name == "--minutes")
      o.minutes = std::stod(value);
    else if (name == "--sample-seconds")
      o.sample_s = std::stoi(value);
    else if (name == "--out")
      o.out = value;
    else if (name == "--context-window")
      o.context_window = std::stoi(value);
    else
      throw std::invalid_argument("unknown option " + name);
  }
  return o;
}

/// The scripted model: tool calls when asked, a closing answer after tool
/// results, an echo (streamed when the request streams) otherwise.
fake_response respond(const json& body) {
  auto& msgs = body["messages"];
  auto& last = msgs.back();
  if (last.value("role", "") == "tool")
    return text("done with the tools");
  // The archive's summary call: a short summary, as a model gives.
  if (msgs.dump().find("<conversation>") != std::string::npos)
    return text("- The user sent soak messages and got them echoed.");
  auto content = last.value("content", json("")).dump();
  if (content.find("[tools]") != std::string::npos) {
    static std::atomic<int> n{0};
    auto id = std::to_string(n++);
    return tool_calls({call("w" + id, "write_file",
                            json{{"path", "soak/f" + id.substr(id.size() - 1) + ".txt"},
                                 {"content", "soak " + id}}),
                       call("r" + id, "list_dir", json{{"path", "."}}),
                       call("e" + id, "exec", json{{"command", "echo soak " + id}})});
  }
  return fake_llm::echo(body);
}

std::string names_text(const std::map<std::string, long>& names) {
  std::string out;
  for (auto& [name, n] : names)
    out += (out.empty() ? "" : " ") + name + "=" + std::to_string(n);
  return out;
}

/// Bytes in the durable inbox's journal files under `home`; -1 when there
/// is none.
long long journal_bytes(const fs::path& home) {
  long long total = -1;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(home, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    // <home>/inbox/journal (and journal.1, ... of a second gateway).
    auto name = it->path().filename().string();
    if (it->path().parent_path().filename() == "inbox"
        && name.rfind("journal", 0) == 0 && it->is_regular_file(ec))
      total = std::max(total, 0LL) + static_cast<long long>(it->file_size(ec));
  }
  return total;
}

std::atomic<bool> stopping{false};
std::atomic<long> sent{0}, answered{0}, failed{0};

/// Session ids allow A-Z a-z 0-9 _ . : - only: `name` names the chats,
/// `prefix` starts each message (the model's "[tools]" cue).
void api_loop(int port, std::chrono::milliseconds every, bool stream,
              const std::string& name, const std::string& prefix, int chats) {
  httplib::Client cli{"127.0.0.1", port};
  cli.set_read_timeout(120, 0);
  for (long n = 0; !stopping; ++n) {
    auto start = clock_type::now();
    json body{{"model", "soak"},
              {"messages", {{{"role", "user"},
                             {"content", prefix + " message " + std::to_string(n)}}}},
              {"session_id", "soak-" + name + "-" + std::to_string(n % chats)},
              {"stream", stream}};
    ++sent;
    auto res = cli.Post("/v1/chat/completions", body.dump(), "application/json");
    if (res && res->status == 200)
      ++answered;
    else
      ++failed;
    std::this_thread::sleep_until(start + every);
  }
}

void telegram_loop(fake_telegram& tg) {
  for (long n = 0; !stopping; ++n) {
    tg.push_text(5000 + n % 10, 7000 + n % 10, "telegram message " + std::to_string(n));
    ++sent;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

void websocket_loop(int port, int id) {
  while (!stopping) {
    ws_client ws;
    auto chat = "soak-ws-" + std::to_string(id);
    if (ws.connect(port, "/?client_id=" + chat + "&chat_id=" + chat) != 101) {
      ++failed;
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    // A connection lives for a minute, then a new one (reconnects are load too).
    auto until = clock_type::now() + std::chrono::minutes(1);
    for (long n = 0; !stopping && clock_type::now() < until; ++n) {
      auto start = clock_type::now();
      ws.send_text("websocket message " + std::to_string(n));
      ++sent;
      while (auto frame = ws.read_text(std::chrono::milliseconds(100)))
        if (frame->find("\"turn_end\"") != std::string::npos)
          ++answered;
      std::this_thread::sleep_until(start + std::chrono::seconds(2));
    }
  }
}

json get_stats(int port) {
  httplib::Client cli{"127.0.0.1", port};
  cli.set_read_timeout(10, 0);
  auto res = cli.Get("/stats");
  if (!res || res->status != 200)
    return json::object();
  return json::parse(res->body, nullptr, false);
}

} // namespace

int main(int argc, char** argv) try {
  auto opt = parse(argc, argv);
  fs::create_directories(opt.out);
  auto home = fs::absolute(opt.out) / "home";
  fs::remove_all(home);
  fs::create_directories(home / "ws");
  fake_llm llm{0, 256};
  llm.set_responder(respond);
  fake_telegram tg;
  int api_port = free_port(), gw_port = free_port(), ws_port = free_port();
  json cfg{
    {"agents", {{"defaults", {{"workspace", (home / "ws").string()},
                              {"model", "soak-model"}}}}},
    {"providers", {{"custom", {{"apiBase", llm.base_url()}}}}},
    {"api", {{"port", api_port}}},
    {"gateway", {{"port", gw_port}, {"sessionIdleSeconds", 120}}},
    {"channels",
     {{"telegram", {{"enabled", true}, {"token", "123:ABC"},
                    {"apiBase", tg.base_url()}, {"allowFrom", {"*"}}}},
      {"websocket", {{"enabled", true}, {"port", ws_port},
                     {"allowFrom", {"*"}}}}}}};
  if (opt.context_window > 0) {
    cfg["agents"]["defaults"]["contextWindowTokens"] = opt.context_window;
    cfg["agents"]["defaults"]["maxTokens"] = opt.context_window / 4;
  }
  auto config = (home / "config.json").string();
  std::ofstream{config} << cfg.dump(2);
  auto cron = run({nanobot_binary(), "cron", "add", "-c", config, "-m",
                   "cron tick", "--every", "10", "-s", "api:soak-cron"},
                  home.string());
  if (cron.code != 0)
    throw std::runtime_error("cron add failed: " + cron.err);
  // NB_SOAK_WRAP runs the gateway under a tool, e.g. "heaptrack -o DIR/heap"
  // to find what holds memory (then the RSS column is the tool's, not the
  // gateway's alone).
  std::vector<std::string> argv;
  if (auto* wrap = std::getenv("NB_SOAK_WRAP")) {
    std::istringstream words{wrap};
    for (std::string w; words >> w;)
      argv.push_back(w);
  }
  argv.insert(argv.end(), {nanobot_binary(), "gateway", "-c", config});
  child_process gw{argv, home.string()};
  if (!gw.wait_for_log("gateway ready", std::chrono::seconds(20)))
    throw std::runtime_error("the gateway did not start: " + gw.err());
  std::cout << "gateway pid " << gw.pid() << ", running " << opt.minutes
            << " min, a sample every " << opt.sample_s << " s\n";

  std::vector<std::thread> load;
  load.emplace_back(api_loop, api_port, std::chrono::milliseconds(1000), false,
                    "plain", "plain", 20);
  load.emplace_back(api_loop, api_port, std::chrono::milliseconds(2000), true,
                    "stream", "stream", 10);
  load.emplace_back(api_loop, api_port, std::chrono::milliseconds(3000), false,
                    "tools", "[tools]", 10);
  load.emplace_back(telegram_loop, std::ref(tg));
  load.emplace_back(websocket_loop, ws_port, 1);
  load.emplace_back(websocket_loop, ws_port, 2);

  std::ofstream csv{fs::path(opt.out) / "samples.csv"};
  csv << "minute,rss_mb,threads,fds,journal_kb,turns,sent,answered,failed,"
         "heap_in_use_mb,rss_smaps_mb\n";
  // threads.csv: the thread names at each sample ("name=count ...").
  std::ofstream threads_csv{fs::path(opt.out) / "threads.csv"};
  threads_csv << "minute,threads_by_name\n";
  struct row {
    double minute;
    proc_figures f;
    long long journal;
    double heap_mb;
    std::map<std::string, long> names;
  };
  std::vector<row> rows;
  auto started = clock_type::now();
  auto end = started + std::chrono::duration<double>(opt.minutes * 60);
  for (int i = 0;; ++i) {
    auto at = started + std::chrono::seconds(opt.sample_s) * i;
    if (at > end)
      break;
    std::this_thread::sleep_until(at);
    auto f = read_figures(gw.pid());
    auto j = journal_bytes(home);
    auto stats = get_stats(gw_port);
    long turns = stats.is_object() && stats.contains("turns")
                   ? stats["turns"].value("completed", 0L) : 0L;
    if (stats.is_object() && stats.contains("turns")
        && stats["turns"].contains("by_outcome"))
      turns = stats["turns"]["by_outcome"].value("completed", 0L);
    // What the program uses (the trimmer's gauge, once a minute): RSS far
    // above it is the allocator's holding.
    double heap_mb = -1;
    if (stats.is_object() && stats.contains("gauges")
        && stats["gauges"].contains("heap_in_use_kb"))
      heap_mb = stats["gauges"]["heap_in_use_kb"].get<double>() / 1024;
    double minute = std::chrono::duration<double>(clock_type::now() - started).count() / 60;
    rows.push_back({minute, f, j, heap_mb, thread_names(gw.pid())});
    threads_csv << minute << "," << names_text(rows.back().names) << "\n"
                << std::flush;
    char line[256];
    std::snprintf(line, sizeof line,
                  "%.2f,%.1f,%ld,%ld,%s,%ld,%ld,%ld,%ld,%s,%.1f",
                  minute, f.rss_kb / 1024.0, f.threads, f.fds,
                  j < 0 ? "NA" : std::to_string(j / 1024).c_str(), turns,
                  sent.load(), answered.load(), failed.load(),
                  heap_mb < 0 ? "NA" : std::to_string(heap_mb).c_str(),
                  f.rss_smaps_kb / 1024.0);
    csv << line << "\n" << std::flush;
    std::cout << line << std::endl;
  }
  stopping = true;
  for (auto& t : load)
    t.join();
  auto t0 = clock_type::now();
  gw.signal(SIGTERM);
  int code = gw.wait(std::chrono::seconds(60));
  double stop_s = std::chrono::duration<double>(clock_type::now() - t0).count();

  // Growth after warm-up: the first fifth of the run (at least one sample).
  size_t warm = std::max<size_t>(1, rows.size() / 5);
  if (rows.size() <= warm)
    warm = rows.empty() ? 0 : rows.size() - 1;
  auto summary = [&](const char* name, auto get) {
    if (rows.empty())
      return;
    double base = get(rows[warm]), last = get(rows.back());
    double lo = base, hi = base;
    for (size_t i = warm; i < rows.size(); ++i) {
      lo = std::min(lo, get(rows[i]));
      hi = std::max(hi, get(rows[i]));
    }
    std::printf("%-8s after warm-up (minute %.1f): %.1f -> %.1f at the end "
                "(%+.1f %%), range %.1f..%.1f\n",
                name, rows[warm].minute, base, last,
                base > 0 ? (last - base) * 100 / base : 0.0, lo, hi);
    // Single samples swing with the load (a burst's pages awaiting the
    // allocator's purge): the medians of the first and last fifth after
    // warm-up say more about a trend.
    size_t span = std::max<size_t>(1, (rows.size() - warm) / 5);
    auto median = [&](size_t from) {
      std::vector<double> v;
      for (size_t i = from; i < std::min(rows.size(), from + span); ++i)
        v.push_back(get(rows[i]));
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      return v[v.size() / 2];
    };
    double early = median(warm), late = median(rows.size() - span);
    std::printf("%-8s medians, first and last fifth after warm-up: %.1f -> "
                "%.1f (%+.1f %%)\n",
                name, early, late,
                early > 0 ? (late - early) * 100 / early : 0.0);
  };
  std::printf("\nsoak: %.1f min, %ld messages sent, %ld answered, %ld failed\n",
              opt.minutes, sent.load(), answered.load(), failed.load());
  summary("rss_mb", [](const row& r) { return r.f.rss_kb / 1024.0; });
  summary("rss_smaps_mb",
          [](const row& r) { return r.f.rss_smaps_kb / 1024.0; });
  if (!rows.empty() && rows.back().heap_mb >= 0)
    summary("heap_mb", [](const row& r) { return r.heap_mb; });
  summary("threads", [](const row& r) { return double(r.f.threads); });
  if (!rows.empty()) {
    // Which kinds of thread the count moved by, warm-up to end.
    std::map<std::string, long> moved;
    for (auto& [name, n] : rows.back().names)
      moved[name] += n;
    for (auto& [name, n] : rows[warm].names)
      moved[name] -= n;
    std::erase_if(moved, [](auto& kv) { return kv.second == 0; });
    std::printf("threads  by name, end minus warm-up: %s\n",
                moved.empty() ? "none" : names_text(moved).c_str());
  }
  summary("fds", [](const row& r) { return double(r.f.fds); });
  if (!rows.empty() && rows.back().journal >= 0)
    summary("journal_kb", [](const row& r) { return r.journal / 1024.0; });
  else
    std::printf("journal  no inbox journal in this build\n");
  std::printf("SIGTERM: exit %d after %.2f s\n", code, stop_s);
  std::printf("telegram replies sent: %zu\n", tg.sent().size());
  return code == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::cerr << "soak_driver: " << e.what() << "\n";
  return 2;
}
