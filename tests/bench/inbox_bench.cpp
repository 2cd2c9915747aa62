// The durable inbox on a real file system: what journaling costs an inbound
// message. Prints figures; asserts nothing.
//   build/tests/bench/inbox_bench [dir]   (default: a temp dir under /tmp;
//   NB_BENCH_DIR=/dev/shm shows the cost without fsync latency)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <caf/all.hpp>

#include "actors/inbox/inbox.hpp"
#include "messages/type_ids.hpp"

using namespace nb;
using clock_type = std::chrono::steady_clock;

namespace {

inbound_msg sample(int i) {
  inbound_msg m;
  m.channel = "telegram";
  m.chat_id = std::to_string(1000 + i % 50);
  m.sender_id = "u" + std::to_string(i % 7);
  m.content = "a message of ordinary length, number " + std::to_string(i)
              + ", asking the agent for something";
  m.metadata_json = R"({"_message_id":")" + std::to_string(i) + R"("})";
  return m;
}

struct counters {
  int64_t appended = 0;
  int64_t fsyncs = 0;
};

/// Drains gauge samples the inbox sent to us (we play its stats actor).
void read_gauges(caf::scoped_actor& self, counters& c) {
  bool more = true;
  while (more)
    self->receive(
      [&](gauge_sample& g) {
        if (g.name == "inbox_appended")
          c.appended = g.value;
        else if (g.name == "inbox_fsyncs")
          c.fsyncs = g.value;
      },
      [&](inbound_msg&) {}, [&](actor_sample&) {},
      caf::after(std::chrono::milliseconds(50)) >> [&] { more = false; });
}

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[static_cast<size_t>(p * (v.size() - 1))];
}

} // namespace

int main(int argc, char** argv) {
  std::string base = argc > 1 ? argv[1]
                              : (std::getenv("NB_BENCH_DIR")
                                   ? std::getenv("NB_BENCH_DIR") : "/tmp");
  auto dir = base + "/nb-inbox-bench-" + std::to_string(::getpid());
  caf::actor_system_config cfg;
  register_messages(cfg);
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  inbox_config ic;
  ic.dir = dir;
  ic.max_bytes = int64_t{1} << 30;
  auto inbox = spawn_inbox(sys, ic, caf::actor_cast<router_actor>(self),
                           caf::actor_cast<stats_actor>(self));
  counters c;
  std::printf("inbox journal in %s\n", dir.c_str());
  // 1. One message at a time: the latency journaling adds to each.
  {
    std::vector<double> us;
    for (int i = 0; i < 500; ++i) {
      auto t0 = clock_type::now();
      self->request(inbox, std::chrono::seconds(10), inbox_record{sample(i)})
        .receive([](inbox_receipt&) {}, [](caf::error&) {});
      us.push_back(std::chrono::duration<double, std::micro>(clock_type::now()
                                                             - t0)
                     .count());
    }
    read_gauges(self, c);
    std::printf("one at a time: %zu messages, added latency p50 %.0f us, "
                "p99 %.0f us; fsyncs per message %.2f\n",
                us.size(), pct(us, 0.5), pct(us, 0.99),
                c.appended ? double(c.fsyncs) / c.appended : 0.0);
  }
  // 2. Bursts: many adapters at once (group commit).
  for (int burst : {10, 100, 1000}) {
    counters before = c;
    int total = 0;
    int failed = 0;
    auto t0 = clock_type::now();
    std::vector<double> waits;
    for (int round = 0; round < std::max(1, 5000 / burst); ++round) {
      using handle = decltype(self->request(inbox, std::chrono::seconds(30),
                                            inbox_record{}));
      std::vector<handle> hs;
      auto r0 = clock_type::now();
      for (int i = 0; i < burst; ++i)
        hs.push_back(self->request(inbox, std::chrono::seconds(30),
                                   inbox_record{sample(burst * 1000000 + total + i)}));
      for (auto& h : hs)
        h.receive(
          [&](inbox_receipt&) {
            waits.push_back(std::chrono::duration<double, std::micro>(
                              clock_type::now() - r0)
                              .count());
          },
          [&](caf::error&) { ++failed; });
      total += burst;
    }
    auto secs = std::chrono::duration<double>(clock_type::now() - t0).count();
    read_gauges(self, c);
    auto n = c.appended - before.appended;
    auto f = c.fsyncs - before.fsyncs;
    std::printf("bursts of %4d: %d messages (%d failed), %.0f messages/s, "
                "%lld fsyncs for %lld journaled (%.3f per message), receipt "
                "wait p50 %.0f us p99 %.0f us\n",
                burst, total, failed, total / secs, static_cast<long long>(f),
                static_cast<long long>(n), n ? double(f) / n : 0.0,
                pct(waits, 0.5), pct(waits, 0.99));
  }
  self->send_exit(inbox, caf::exit_reason::user_shutdown);
  self->wait_for(inbox);
  std::error_code ec;
  auto size = std::filesystem::file_size(dir + "/journal", ec);
  std::printf("journal size at the end: %ju bytes (nothing settled)\n",
              static_cast<uintmax_t>(size));
  std::filesystem::remove_all(dir, ec);
}
