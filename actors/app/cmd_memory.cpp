// `nanobot memory search|stats|reindex`: the agent's semantic memory from
// the shell. Works on the index file directly (SQLite's WAL lets a running
// gateway and this command share it).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/memory_index/index_core.hpp"
#include "config/memory_config.hpp"

namespace nb {

namespace {

constexpr const char* memory_usage =
  "Usage:\n"
  "  nanobot memory search \"QUERY\" [-k N] [--category fact|profile|"
  "experience]\n"
  "  nanobot memory stats\n"
  "  nanobot memory reindex\n"
  "Options: -c/--config FILE. The index is <workspace>/memory/index.sqlite,\n"
  "rebuilt from MEMORY.md, memory/*.md and history.jsonl whenever they "
  "change.\n";

void print_figures(const memory_figures& f) {
  std::cout << "workspace:    " << f.workspace << "\n"
            << "chunks:       " << f.chunks << " (" << f.embedded
            << " with vectors)\n"
            << "index size:   " << f.index_bytes / 1024 << " KiB\n"
            << "search mode:  " << f.mode
            << (f.note.empty() ? "" : " — " + f.note) << "\n"
            << "embed calls:  " << f.embed_calls << " (" << f.embed_failures
            << " failed, " << f.cache_hits << " cache hits)\n";
}

} // namespace

int cmd_memory(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::cout << memory_usage;
    return args.empty() ? 2 : 0;
  }
  auto action = args[0];
  options opts;
  memory_query q;
  std::vector<std::string> positional;
  for (size_t i = 1; i < args.size(); ++i) {
    const auto& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "-c" || a == "--config") {
      if (!has_value)
        return usage_error("memory", memory_usage, a + " needs a value");
      opts.config_path = args[++i];
    } else if (a == "-k") {
      if (!has_value)
        return usage_error("memory", memory_usage, "-k needs a number");
      try {
        size_t used = 0;
        q.k = std::stoi(args[++i], &used);
        if (used != args[i].size() || q.k < 1 || q.k > 50)
          throw std::invalid_argument{"k"};
      } catch (const std::exception&) {
        return usage_error("memory", memory_usage,
                           "-k needs a number from 1 to 50, got '" + args[i]
                             + "'");
      }
    } else if (a == "--category") {
      if (!has_value)
        return usage_error("memory", memory_usage, a + " needs a value");
      q.category = args[++i];
      if (!memory::valid_category(q.category))
        return usage_error("memory", memory_usage,
                           "--category must be fact, profile or experience");
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("memory", memory_usage,
                         unknown_word("option", a, {"--config", "--category"}));
    } else {
      positional.push_back(a);
    }
  }
  if (action != "search" && action != "stats" && action != "reindex")
    return usage_error(
      "memory", memory_usage,
      unknown_word("action", action, {"search", "stats", "reindex"}));
  if (action == "search" ? positional.size() != 1 : !positional.empty())
    return usage_error("memory", memory_usage,
                       action == "search"
                         ? "search needs one QUERY (quote it)"
                         : "unexpected argument '" + positional[0] + "'");
  auto cfg = load_config_or_report(opts);
  if (!cfg)
    return 2;
  auto mem = load_memory_config(cfg->config_path);
  if (auto* err = std::get_if<config_error>(&mem)) {
    std::cerr << "nanobot memory: " << err->message() << "\n";
    return 2;
  }
  for (auto& w : std::get<memory_settings>(mem).warnings)
    std::cerr << "warning: " << w << "\n";
  memory::index_options io;
  io.workspace = cfg->workspace_path();
  io.settings = std::get<memory_settings>(mem);
  auto embed = memory::choose_embeddings(*cfg, io.settings);
  if (embed.usable())
    io.embeddings = embed.endpoint;
  else
    io.embed_problem = embed.problem;
  try {
    memory::index_core index{io};
    if (action == "search") {
      q.workspace = io.workspace;
      q.query = positional[0];
      auto hits = index.search(q);
      if (hits.hits.empty())
        std::cout << "No memories match.\n";
      for (auto& h : hits.hits) {
        char score[16];
        std::snprintf(score, sizeof score, "%.3f", h.score);
        std::cout << "#" << h.id << "  " << score << "  [" << h.category
                  << ", " << h.date << ", " << h.source << ":" << h.line_start
                  << (h.line_end != h.line_start
                        ? "-" + std::to_string(h.line_end)
                        : "")
                  << "]\n    " << h.text << "\n";
      }
      std::cerr << "(" << hits.mode
                << (hits.note.empty() ? "" : ": " + hits.note) << ", "
                << hits.took_us / 1000.0 << " ms)\n";
      return 0;
    }
    if (action == "reindex") {
      auto started = std::chrono::steady_clock::now();
      index.reindex();
      while (index.embed_batch()) {
      }
      auto f = index.figures();
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - started)
                  .count();
      std::cout << "re-indexed in " << ms << " ms: +" << f.added << " -"
                << f.removed << " chunks\n";
      print_figures(f);
      return 0;
    }
    index.sync();
    print_figures(index.figures());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "nanobot memory: " << e.what() << "\n";
    return 1;
  }
}

} // namespace nb
