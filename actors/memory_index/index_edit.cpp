// Memory index: memory_save and memory_forget — the Markdown file stays the
// truth, the index follows it.
#include "actors/memory_index/index_core.hpp"
#include "actors/memory_index/index_core_parts.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "actors/memory/memory_file.hpp"
#include "actors/memory/memory_lock.hpp"
#include "actors/memory_index/ranking.hpp"
#include "config/atomic_file.hpp"

namespace nb::memory {

using nlohmann::json;

std::string index_core::save(const std::string& raw,
                             const std::string& category_in) {
  auto text = one_line(raw);
  auto category = category_in.empty() ? std::string{"fact"} : category_in;
  if (text.empty())
    throw std::invalid_argument("text is empty");
  if (text.size() > max_save_chars)
    throw std::invalid_argument(
      "text is longer than " + std::to_string(max_save_chars)
      + " characters; save the gist, one fact at a time");
  if (!valid_category(category))
    throw std::invalid_argument("category must be fact, profile or "
                                "experience (got \"" + category + "\")");
  // Tags in the text would change what the line means.
  while (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close > 16)
      break;
    text = one_line(text.substr(close + 1));
  }
  if (text.empty())
    throw std::invalid_argument("text is empty");
  sync();
  return with_db([&]() -> std::string {
    for (auto id : db_->same_text(text))
      if (auto r = db_->row(id))
        return "Already remembered as #" + std::to_string(id) + " ("
               + r->category + ", " + r->source + "); nothing saved.";
    std::optional<std::vector<float>> v;
    if (embedder_ && vectors_.size() > 0) {
      v = embed_query(text);
      if (v)
        for (auto& [id, s] : vectors_.top(v->data(), 1, duplicate_cosine))
          if (auto r = db_->row(id))
            return "Already remembered as #" + std::to_string(id) + ": \""
                   + shortened(r->text, 200) + "\"; nothing saved.";
    }
    auto line = category == "fact" ? text : "[" + category + "] " + text;
    std::string error;
    if (add_memory_facts(opts_.workspace, {line}, error) < 0)
      throw std::runtime_error("cannot write memory/MEMORY.md: " + error);
    sync();
    auto ids = db_->same_text(text);
    if (ids.empty())
      return "Saved to memory/MEMORY.md (" + category + ").";
    auto id = ids.back();
    if (v && static_cast<int32_t>(v->size()) == vectors_.dims()) {
      db_->set_embedding(id, *v, embedder_->endpoint().model);
      vectors_.put(id, v->data());
    }
    return "Saved to memory as #" + std::to_string(id) + " (" + category
           + ").";
  });
}

std::string index_core::forget(int64_t id) {
  sync();
  return with_db([&]() -> std::string {
    auto r = db_->row(id);
    if (!r)
      return "No memory #" + std::to_string(id)
             + " (ids change when memory files are edited: search again).";
    auto path = opts_.workspace + "/" + r->source;
    {
      memory_lock lock{opts_.workspace};
      auto text = read_capped(path);
      if (!text)
        return "Cannot read " + r->source + "; nothing forgotten.";
      std::optional<std::string> rewritten;
      if (r->source == history_jsonl) {
        // One entry per line: rewrite that entry's content.
        std::istringstream in{*text};
        std::string out, line;
        int32_t no = 0;
        while (std::getline(in, line)) {
          ++no;
          if (no == r->line_start && !rewritten) {
            auto entry = json::parse(line, nullptr, false);
            if (entry.is_object() && entry.value("content", json()).is_string())
              if (auto rest = without_piece(entry["content"].get<std::string>(),
                                            r->text)) {
                rewritten = "";
                if (one_line(*rest).empty())
                  continue; // nothing left of the entry
                entry["content"] = *rest;
                line = entry.dump(-1, ' ', false,
                                  json::error_handler_t::replace);
              }
          }
          out += line + "\n";
        }
        if (rewritten)
          rewritten = std::move(out);
      } else {
        rewritten = without_piece(*text, r->text);
      }
      if (!rewritten) {
        sync();
        return "Memory #" + std::to_string(id) + " is no longer in "
               + r->source + " as it was indexed; search again.";
      }
      auto w = replace_file_atomic(path, *rewritten, 0644);
      if (w.outcome == write_outcome::failed)
        throw std::runtime_error(w.error);
    }
    sync();
    return "Forgot #" + std::to_string(id) + " (\"" + shortened(r->text, 120)
           + "\", removed from " + r->source + ").";
  });
}

} // namespace nb::memory
