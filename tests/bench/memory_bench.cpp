// Semantic memory benchmark (run on demand; figures, never assertions):
// indexing 10 000 chunks (full text, then vectors in batches from a
// scripted /v1/embeddings server on 127.0.0.1), search p50/p99 at 10 000
// and 100 000 chunks (full text alone, hybrid), brute-force cosine alone,
// and the RSS the index adds.
//
//   build/tests/bench/memory_bench [dims=256] [queries=200]
#include <algorithm>
#include <ctime>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/memory_index/index_core.hpp"
#include "actors/memory_index/memory_directory.hpp"
#include "tests/support/fake_embeddings.hpp"
#include "tests/support/scratch_dir.hpp"

using namespace nb;
using namespace nb::memory;
using clk = std::chrono::steady_clock;

namespace {

int64_t rss_kb() {
  std::ifstream in{"/proc/self/status"};
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stoll(line.substr(6));
  return 0;
}

double ms_since(clk::time_point t) {
  return std::chrono::duration<double, std::milli>(clk::now() - t).count();
}

/// This thread's CPU time in ms: the figures stay readable on a machine
/// shared with other builds (wall time is printed beside them).
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

std::vector<std::string> vocabulary() {
  std::vector<std::string> words;
  std::mt19937 rng{7};
  const std::string letters = "abcdefghijklmnopqrstuvwxyz";
  for (int i = 0; i < 5000; ++i) {
    std::string w;
    auto len = 3 + rng() % 7;
    for (size_t k = 0; k < len; ++k)
      w += letters[rng() % letters.size()];
    words.push_back(w);
  }
  return words;
}

/// `n` facts of 12 words in memory/notes-<k>.md files of 5 000 lines.
void write_facts(const std::string& ws, size_t n,
                 const std::vector<std::string>& vocab) {
  std::filesystem::create_directories(ws + "/memory");
  std::mt19937 rng{42};
  std::ofstream out;
  for (size_t i = 0; i < n; ++i) {
    if (i % 5000 == 0) {
      out.close();
      out.open(ws + "/memory/notes-" + std::to_string(i / 5000) + ".md");
    }
    out << "- fact " << i << ":";
    for (int w = 0; w < 12; ++w)
      out << ' ' << vocab[rng() % vocab.size()];
    out << "\n";
  }
}

struct percentiles {
  double p50 = 0, p99 = 0;         ///< CPU time
  double wall50 = 0, wall99 = 0;   ///< wall time
};

percentiles of(std::vector<double> cpu, std::vector<double> wall) {
  std::sort(cpu.begin(), cpu.end());
  std::sort(wall.begin(), wall.end());
  auto at = [](const std::vector<double>& v, size_t pct) {
    return v[std::min(v.size() - 1, v.size() * pct / 100)];
  };
  return {at(cpu, 50), at(cpu, 99), at(wall, 50), at(wall, 99)};
}

percentiles measure(index_core& idx, const std::string& ws,
                    const std::vector<std::string>& vocab, int queries,
                    std::string* mode = nullptr) {
  std::mt19937 rng{99};
  std::vector<double> t, cpu;
  for (int i = 0; i < queries; ++i) {
    memory_query q;
    q.workspace = ws;
    q.query = vocab[rng() % vocab.size()] + " " + vocab[rng() % vocab.size()]
              + " " + vocab[rng() % vocab.size()];
    auto start = clk::now();
    auto c = cpu_ms();
    auto hits = idx.search(q);
    cpu.push_back(cpu_ms() - c);
    t.push_back(ms_since(start));
    if (mode)
      *mode = hits.mode;
  }
  return of(cpu, t);
}

index_options options(const std::string& ws, const test::fake_embeddings* emb,
                      int dims) {
  index_options o;
  o.workspace = ws;
  if (emb) {
    embed_endpoint ep;
    ep.api_base = emb->base_url();
    ep.model = "bench-embed";
    ep.dimensions = dims;
    ep.batch_size = 64;
    o.embeddings = ep;
  }
  return o;
}

void run(size_t n, int dims, int queries, const std::vector<std::string>& vocab,
         test::fake_embeddings& emb) {
  test::scratch_dir home;
  auto ws = home.path;
  write_facts(ws, n, vocab);
  std::printf("\n== %zu chunks, %d dimensions ==\n", n, dims);
  {
    index_core fts{options(ws, nullptr, dims)};
    auto t = clk::now();
    auto c = cpu_ms();
    fts.sync();
    auto cpu = cpu_ms() - c;
    auto ms = ms_since(t);
    std::printf("full-text indexing: %.0f ms CPU (%.0f chunks/s), %.0f ms "
                "wall\n", cpu, n / (cpu / 1000), ms);
    auto p = measure(fts, ws, vocab, queries);
    std::printf("full-text search:   CPU p50 %.2f ms  p99 %.2f ms (wall p50 "
                "%.2f  p99 %.2f)\n", p.p50, p.p99, p.wall50, p.wall99);
  }
  if (n <= 10000) {
    index_core idx{options(ws, &emb, dims)};
    idx.sync();
    auto calls = emb.calls();
    auto t = clk::now();
    while (idx.embed_batch()) {
    }
    auto ms = ms_since(t);
    std::printf("vectors over HTTP:  %.0f ms (%.0f chunks/s, %d requests of "
                "up to 64)\n",
                ms, n / (ms / 1000), emb.calls() - calls);
  } else {
    // 100 000 vectors through loopback JSON would measure the fake server;
    // they are written straight into the index (same format) instead.
    index_db db{ws + "/memory/index.sqlite"};
    auto t = clk::now();
    auto todo = db.unembedded("bench-embed", dims, static_cast<int>(n));
    db.begin();
    for (auto& [id, text] : todo)
      db.set_embedding(id, emb.vector_of(text), "bench-embed");
    db.commit();
    std::printf("vectors written directly: %.0f ms\n", ms_since(t));
  }
  auto before = rss_kb();
  auto t = clk::now();
  index_core idx{options(ws, &emb, dims)};
  idx.sync();
  std::printf("open + load vectors: %.0f ms, RSS +%.1f MB (index file %.1f MB)\n",
              ms_since(t), (rss_kb() - before) / 1024.0,
              idx.figures().index_bytes / 1048576.0);
  std::string mode;
  auto p = measure(idx, ws, vocab, queries, &mode);
  std::printf("%s search:     CPU p50 %.2f ms  p99 %.2f ms (wall p50 %.2f  "
              "p99 %.2f, the query embedded over loopback HTTP each time)\n",
              mode.c_str(), p.p50, p.p99, p.wall50, p.wall99);
  vector_set set(dims);
  auto q = emb.vector_of("a query");
  index_db db{ws + "/memory/index.sqlite"};
  db.each_embedding("bench-embed", dims,
                    [&](int64_t id, const float* v) { set.put(id, v); });
  std::vector<double> tv, tc;
  for (int i = 0; i < queries; ++i) {
    auto s = clk::now();
    auto c = cpu_ms();
    auto top = set.top(q.data(), 50, 0.3f);
    tc.push_back(cpu_ms() - c);
    tv.push_back(ms_since(s));
    q[static_cast<size_t>(i % dims)] += 0.01f;
  }
  auto bf = of(tc, tv);
  std::printf("brute-force cosine (%zu vectors, int8): CPU p50 %.2f ms  p99 "
              "%.2f ms (wall p50 %.2f  p99 %.2f)\n",
              set.size(), bf.p50, bf.p99, bf.wall50, bf.wall99);
}

/// What automatic recall adds to a turn when the agent has no memories:
/// one request through the directory to the (started) index actor.
void empty_recall(int queries) {
  test::scratch_dir ws;
  caf::actor_system_config cfg;
  register_messages(cfg);
  caf::actor_system sys{cfg};
  spawn_memory_directory(sys, settings{}, memory_settings{}, stats_actor{});
  caf::scoped_actor self{sys};
  std::vector<double> t;
  for (int i = 0; i <= queries; ++i) {
    memory_query q;
    q.workspace = ws.path;
    q.query = "what did I say about the garden?";
    q.recall = true;
    auto start = clk::now();
    self->request(find_memory(sys), std::chrono::seconds(10), q)
      .receive([](memory_hits&) {}, [](caf::error&) {});
    if (i > 0) // the first one starts the index
      t.push_back(ms_since(start) * 1000);
  }
  std::sort(t.begin(), t.end());
  std::printf("recall on an empty index (per turn, through the actors): "
              "p50 %.0f us  p99 %.0f us\n",
              t[t.size() / 2], t[std::min(t.size() - 1, t.size() * 99 / 100)]);
  stop_memory_directory(sys);
}

} // namespace

int main(int argc, char** argv) {
  int dims = argc > 1 ? std::atoi(argv[1]) : 256;
  int queries = argc > 2 ? std::atoi(argv[2]) : 200;
  auto vocab = vocabulary();
  test::fake_embeddings emb(dims);
  empty_recall(queries);
  run(10000, dims, queries, vocab, emb);
  run(100000, dims, queries, vocab, emb);
  return 0;
}
