#include "actors/session/archive_worker.hpp"

#include <memory>

#include <caf/event_based_actor.hpp>

#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "actors/common/timed_request.hpp"
#include "actors/memory/history_file.hpp"
#include "actors/memory/memory_file.hpp"
#include "actors/session/archive.hpp"
#include "messages/errc.hpp"

namespace nb {

using json = nlohmann::json;

caf::behavior archive_worker(caf::event_based_actor* self, archive_job job) {
  name_thread("nb.archive");
  return {
    [=](caf::get_atom) -> caf::result<bool, std::string> {
      // Answered once: by the model's reply, its failure, or the
      // provider going down (then no reply would ever come).
      struct pending {
        caf::response_promise rp;
        bool done = false;
      };
      auto p = std::make_shared<pending>();
      p->rp = self->make_response_promise();
      auto finish = [=](bool raw, std::string entry) {
        if (p->done)
          return;
        p->done = true;
        // The provider outlives this worker: a monitor left on it would keep
        // the worker's memory block (and an entry in the provider) for good.
        self->demonitor(job.provider.address());
        if (job.files) {
          // The workspace actor owns the files: it appends both.
          workspace_append rq{job.session_key,
                              entry != nothing_to_archive ? entry : "",
                              raw ? std::vector<std::string>{}
                                  : permanent_facts(entry)};
          timed_request(self, job.files, std::chrono::seconds(60),
                        std::move(rq))
            .then(
              [=](caf::ok_atom) {
                p->rp.deliver(raw, entry);
                self->quit();
              },
              [=](caf::error& err) {
                p->rp.deliver(err);
                self->quit();
              });
          return;
        }
        std::string err;
        // Facts first: the history entry is what marks the range done
        // (a retry after a failed append adds no fact twice).
        if (!raw
            && add_memory_facts(job.workspace, permanent_facts(entry), err) < 0)
          log::get("memory")->warn("[{}] {}", job.session_key, err);
        if (entry != nothing_to_archive
            && !append_history(job.workspace, entry, job.session_key, err)) {
          p->rp.deliver(caf::make_error(errc::store_failed, err));
          self->quit();
          return;
        }
        p->rp.deliver(raw, std::move(entry));
        self->quit();
      };
      auto raw = [=] { finish(true, raw_archive(job.formatted, job.count)); };
      self->monitor(job.provider);
      self->set_down_handler([=](caf::down_msg&) { raw(); });
      model_request rq;
      rq.request_id = job.session_key + ":archive";
      rq.model = job.model;
      rq.provider = job.provider_name;
      rq.messages_json
        = json::array({{{"role", "user"},
                        {"content", archive_prompt(job.formatted)}}})
            .dump();
      rq.max_tokens = 2048;
      rq.temperature = 0.1;
      timed_request(self, job.provider, job.timeout, std::move(rq))
        .then(
          [=](model_reply& r) {
            auto text = clean_summary(r.content);
            bool ok = r.finish_reason != "error" && r.finish_reason != "length"
                      && !text.empty() && r.tool_calls.empty();
            if (ok)
              finish(false, std::move(text));
            else
              raw();
          },
          [=](caf::error&) { raw(); });
      return p->rp;
    },
  };
}

} // namespace nb
