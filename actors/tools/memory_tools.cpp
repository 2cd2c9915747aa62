// memory_search, memory_save and memory_forget: the agent's semantic
// memory (actors/memory_index). The tools run on tool workers and ask the
// memory directory; MEMORY.md stays the truth (save appends to it, forget
// removes the line), the index follows it.
#include <chrono>
#include <cstdio>

#include <caf/scoped_actor.hpp>

#include "actors/common/find_memory.hpp"
#include "actors/tools/builtin_tools.hpp"

namespace nb {

namespace {

using nlohmann::json;

constexpr auto memory_timeout = std::chrono::seconds(60);

/// Asks the memory directory and turns the answer into tool output.
template <class Reply, class Format, class... Ts>
tool_output ask_memory(const tool_context& ctx, Format format, Ts&&... xs) {
  if (!ctx.system)
    return {"Error: memory is not available here", true};
  auto memory = find_memory(*ctx.system);
  if (!memory)
    return {"Error: memory is not running in this process", true};
  caf::scoped_actor self{*ctx.system};
  tool_output out;
  self->request(memory, memory_timeout, std::forward<Ts>(xs)...)
    .receive([&](Reply& r) { out = format(r); },
             [&](caf::error& err) {
               out = {"Error: " + ctx.system->render(err), true};
             });
  return out;
}

std::string text_arg(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : "";
}

tool_output memory_search(const json& args, const tool_context& ctx) {
  memory_query q;
  q.workspace = ctx.workspace;
  q.query = text_arg(args, "query");
  q.category = text_arg(args, "category");
  if (auto k = args.find("k"); k != args.end() && k->is_number_integer())
    q.k = static_cast<int32_t>(k->get<int64_t>());
  if (q.query.find_first_not_of(" \t\r\n") == std::string::npos)
    return {"Error: query is empty", true};
  if (q.k < 1 || q.k > 50)
    return {"Error: k must be between 1 and 50", true};
  return ask_memory<memory_hits>(
    ctx,
    [](memory_hits& r) -> tool_output {
      if (r.hits.empty())
        return {"No memories match (" + r.mode + " search).", false};
      std::string out;
      for (auto& h : r.hits) {
        char score[16];
        std::snprintf(score, sizeof score, "%.2f", h.score);
        out += "#" + std::to_string(h.id) + " [" + h.category + ", " + h.date
               + ", " + h.source + ":" + std::to_string(h.line_start)
               + ", score " + score + "] " + h.text + "\n";
      }
      if (!r.note.empty())
        out += "(" + r.mode + " search: " + r.note + ")\n";
      return {out, false};
    },
    std::move(q));
}

tool_output memory_save(const json& args, const tool_context& ctx) {
  return ask_memory<std::string>(
    ctx, [](std::string& r) -> tool_output { return {r, false}; },
    memory_save_request{ctx.workspace, text_arg(args, "text"),
                        text_arg(args, "category")});
}

tool_output memory_forget(const json& args, const tool_context& ctx) {
  auto id = args.find("id");
  if (id == args.end() || !id->is_number_integer() || id->get<int64_t>() <= 0)
    return {"Error: id must be a memory id shown by memory_search", true};
  return ask_memory<std::string>(
    ctx, [](std::string& r) -> tool_output { return {r, false}; },
    memory_forget_request{ctx.workspace, id->get<int64_t>()});
}

} // namespace

void add_memory_tools(tool_registry& reg) {
  json category{{"type", "string"},
                {"enum", {"fact", "profile", "experience"}},
                {"description",
                 "fact: the world and the user's affairs; profile: who the "
                 "user is (name, preferences, people); experience: what "
                 "worked or failed when doing a task."}};
  json search{{"type", "object"},
              {"properties",
               {{"query",
                 {{"type", "string"},
                  {"description", "What to look for, in plain words."}}},
                {"k",
                 {{"type", "integer"},
                  {"minimum", 1},
                  {"maximum", 50},
                  {"description", "How many memories to return (default 5)."}}},
                {"category", category}}},
              {"required", {"query"}}};
  reg.add({"memory_search",
           "Search your long-term memory (MEMORY.md, memory/*.md and past "
           "conversation summaries) by meaning and words. Returns ranked "
           "snippets with their id, category, date and source.",
           {}, true, false},
          search,
          memory_search);
  json save{{"type", "object"},
            {"properties",
             {{"text",
               {{"type", "string"},
                {"description", "One fact, in a short self-contained "
                                "sentence."}}},
              {"category", category}}},
            {"required", {"text", "category"}}};
  reg.add({"memory_save",
           "Remember one fact for later conversations: appended to "
           "memory/MEMORY.md and indexed. A fact already known is not saved "
           "twice.",
           {}, false, false},
          save,
          memory_save);
  json forget{{"type", "object"},
              {"properties",
               {{"id",
                 {{"type", "integer"},
                  {"description", "The memory's id from memory_search."}}}}},
              {"required", {"id"}}};
  reg.add({"memory_forget",
           "Forget one memory that is wrong or no longer true: removes it "
           "from its file and the index.",
           {}, false, false},
          forget,
          memory_forget);
}

} // namespace nb
