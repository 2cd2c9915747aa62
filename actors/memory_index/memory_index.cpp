#include "actors/memory_index/memory_index.hpp"

#include <stdexcept>

#include "actors/common/log.hpp"
#include "actors/common/thread_name.hpp"
#include "messages/errc.hpp"

namespace nb {

namespace {

/// Runs `work` and turns exceptions into errors for the requester: a bad
/// request never takes the index (and every later request) down.
template <class T, class F>
caf::result<T> guarded(memory_index_pointer self, F&& work) {
  auto t = self->state.meter.measure();
  try {
    return work();
  } catch (const std::invalid_argument& e) {
    return caf::make_error(errc::invalid_arguments, e.what());
  } catch (const std::exception& e) {
    self->state.meter.failed();
    log::get("memory")->error("memory index {}: {}",
                              self->state.core->workspace(), e.what());
    return caf::make_error(errc::store_failed, e.what());
  }
}

void report(memory_index_pointer self) {
  auto& st = self->state;
  st.since_report = 0;
  if (!st.directory)
    return;
  try {
    self->send(st.directory, st.core->figures());
  } catch (const std::exception&) {
    // Figures are best effort; the next request reports again.
  }
}

/// Starts the batch loop when chunks wait for vectors.
void keep_embedding(memory_index_pointer self) {
  auto& st = self->state;
  if (st.stepping)
    return;
  if (st.core->embeddings_pending()) {
    st.stepping = true;
    self->send(self, memory_step_atom::value);
  }
}

} // namespace

memory_index_actor::behavior_type
memory_index_impl(memory_index_pointer self, memory::index_options opts,
                  memory_directory_actor directory, stats_actor stats) {
  name_thread("nb.memindex");
  auto& st = self->state;
  st.core = std::make_unique<memory::index_core>(std::move(opts));
  st.directory = std::move(directory);
  st.meter.start(self, "memory_index", std::move(stats));
  // The first message opens the file and reads the memory files.
  return {
    [self](memory_query& q) -> caf::result<memory_hits> {
      auto r = guarded<memory_hits>(self, [&] {
        return self->state.core->search(q);
      });
      if (++self->state.since_report >= 50)
        report(self);
      keep_embedding(self);
      return r;
    },
    [self](memory_save_request& rq) -> caf::result<std::string> {
      auto r = guarded<std::string>(self, [&] {
        return self->state.core->save(rq.text, rq.category);
      });
      report(self);
      keep_embedding(self);
      return r;
    },
    [self](memory_forget_request& rq) -> caf::result<std::string> {
      auto r = guarded<std::string>(self, [&] {
        return self->state.core->forget(rq.id);
      });
      report(self);
      return r;
    },
    [self](memory_stats_atom, std::string&) -> caf::result<memory_figures> {
      auto r = guarded<memory_figures>(self, [&] {
        self->state.core->sync();
        return self->state.core->figures();
      });
      keep_embedding(self);
      return r;
    },
    [self](memory_reindex_atom, std::string&) -> caf::result<memory_figures> {
      auto r = guarded<memory_figures>(self, [&] {
        self->state.core->reindex();
        // The command line wants the vectors too: finish them here.
        while (self->state.core->embed_batch()) {
        }
        return self->state.core->figures();
      });
      report(self);
      return r;
    },
    [self](memory_step_atom) {
      auto& st = self->state;
      st.stepping = false;
      bool more = false;
      guarded<bool>(self, [&] {
        more = st.core->embed_batch();
        return more;
      });
      if (more) {
        st.stepping = true;
        self->send(self, memory_step_atom::value);
        return;
      }
      report(self);
      // A resting endpoint is tried again when its pause ends.
      auto wait = st.core->retry_at() - std::chrono::steady_clock::now();
      if (wait > std::chrono::seconds(0)) {
        st.stepping = true;
        self->delayed_send(self,
                           std::chrono::duration_cast<std::chrono::seconds>(
                             wait)
                             + std::chrono::seconds(1),
                           memory_step_atom::value);
      }
    },
  };
}

} // namespace nb
