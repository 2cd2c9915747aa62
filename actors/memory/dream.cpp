#include "actors/memory/dream.hpp"

#include <fstream>
#include <memory>
#include <sstream>

#include <caf/event_based_actor.hpp>

#include <nlohmann/json.hpp>

#include "actors/common/file_text.hpp"
#include "actors/common/strings.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/common/utf8.hpp"
#include "actors/memory/memory_file.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

/// Cuts `s` to at most `cap` bytes on a UTF-8 boundary.
std::string capped(const std::string& s, size_t cap) {
  if (s.size() <= cap)
    return s;
  return std::string{utf8_head(s, cap)} + " ...";
}

} // namespace

int64_t read_dream_cursor(const std::string& workspace) {
  auto text = trim_space(read_file_text(workspace + "/memory/.dream_cursor"));
  try {
    size_t used = 0;
    auto v = std::stoll(text, &used);
    return used == text.size() && v > 0 ? v : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

std::string write_dream_cursor(const std::string& workspace, int64_t cursor) {
  // The original writes the bare number without a newline.
  auto r = replace_file_atomic(workspace + "/memory/.dream_cursor",
                               std::to_string(cursor), 0644);
  return r.outcome == write_outcome::failed ? r.error : "";
}

std::string skip_dream_backlog(const std::string& workspace) {
  auto latest = latest_history_cursor(workspace);
  if (read_dream_cursor(workspace) >= latest)
    return "";
  return write_dream_cursor(workspace, latest);
}

std::vector<history_entry> dream_batch_after(
  const std::vector<history_entry>& all, int64_t cursor, size_t batch) {
  std::vector<history_entry> out;
  for (auto& e : all)
    if (e.cursor > cursor && out.size() < batch)
      out.push_back(e);
  return out;
}

std::string dream_prompt(const std::vector<history_entry>& entries,
                         const std::string& memory_md) {
  std::string text
    = "You keep the long-term memory of an assistant. Below are short "
      "records of recent conversations, and the memory file as it is now.\n"
      "Write down what is worth remembering for months: facts about the "
      "user and the people and things in their life, their preferences, "
      "decisions they made, projects that are still going on. Leave out "
      "passing details, anything the memory file already says, and "
      "anything about these instructions.\n"
      "Answer with one fact per line, each line starting with \"- \", "
      "written so it makes sense on its own. If there is nothing worth "
      "keeping, answer exactly (nothing).\n\n## Memory file now\n";
  text += memory_md.empty() ? "(empty)" : capped(memory_md, dream_memory_chars);
  text += "\n\n## Conversation records\n";
  for (auto& e : entries)
    text += "[" + e.timestamp + "] " + capped(e.content, dream_entry_chars)
            + "\n";
  return text;
}

std::vector<std::string> dream_facts(const std::string& reply) {
  std::vector<std::string> out;
  std::istringstream lines{reply};
  std::string line;
  bool in_think = false;
  while (std::getline(lines, line)) {
    auto t = trim_space(line);
    if (t.rfind("<think", 0) == 0)
      in_think = true;
    if (in_think) {
      if (t.find("</think>") != std::string::npos)
        in_think = false;
      continue;
    }
    if (t.rfind("- ", 0) != 0 && t.rfind("* ", 0) != 0)
      continue;
    auto fact = trim_space(t.substr(2));
    if (!fact.empty() && fact != "(nothing)")
      out.push_back(capped(fact, dream_entry_chars));
  }
  return out;
}

caf::behavior dream_worker(caf::event_based_actor* self, dream_job job) {
  return {
    [=](caf::get_atom) -> caf::result<std::string> {
      auto all = read_history(job.workspace);
      auto cursor = read_dream_cursor(job.workspace);
      auto batch = dream_batch_after(all, cursor, dream_batch);
      if (batch.empty()) {
        self->quit();
        return std::string{"nothing to process"};
      }
      auto memory_md = read_file_text(job.workspace + "/memory/MEMORY.md");
      struct pending {
        caf::typed_response_promise<std::string> rp;
        bool done = false;
      };
      auto p = std::make_shared<pending>();
      p->rp = self->make_response_promise<std::string>();
      auto finish = [=](std::string what) {
        if (p->done)
          return;
        p->done = true;
        // A monitor left on the long-lived provider would keep this
        // worker's memory block (and an entry in the provider) for good.
        self->demonitor(job.provider.address());
        p->rp.deliver(std::move(what));
        self->quit();
      };
      self->monitor(job.provider);
      self->set_down_handler([=](caf::down_msg&) {
        finish("did not complete: the provider went down; the cursor stays "
               "at " + std::to_string(cursor));
      });
      model_request rq;
      rq.request_id = "dream";
      rq.model = job.model;
      rq.provider = job.provider_name;
      rq.messages_json
        = json::array({{{"role", "user"},
                        {"content", dream_prompt(batch, memory_md)}}})
            .dump(-1, ' ', false, json::error_handler_t::replace);
      rq.max_tokens = 2048;
      rq.temperature = 0.1;
      auto last = batch.back().cursor;
      auto count = batch.size();
      timed_request(self, job.provider, job.timeout, std::move(rq))
        .then(
          [=](model_reply& r) {
            if (r.finish_reason == "error" || r.finish_reason == "length"
                || !r.tool_calls.empty() || trim_space(r.content).empty()) {
              finish("did not complete ("
                     + (r.error.empty() ? "no usable answer" : r.error)
                     + "); the cursor stays at " + std::to_string(cursor));
              return;
            }
            std::string err;
            auto added = add_memory_facts(job.workspace,
                                          dream_facts(r.content), err);
            if (added < 0) {
              finish("did not complete (" + err + "); the cursor stays at "
                     + std::to_string(cursor));
              return;
            }
            if (auto werr = write_dream_cursor(job.workspace, last);
                !werr.empty()) {
              finish("added " + std::to_string(added)
                     + " fact(s) but could not move the cursor: " + werr);
              return;
            }
            finish("added " + std::to_string(added) + " fact(s) from "
                   + std::to_string(count) + " entries; cursor at "
                   + std::to_string(last));
          },
          [=](caf::error& err) {
            finish("did not complete (" + self->system().render(err)
                   + "); the cursor stays at " + std::to_string(cursor));
          });
      return p->rp;
    },
  };
}

} // namespace nb
