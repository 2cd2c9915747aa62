#include "actors/cli/reply_view.hpp"

#include <ostream>

namespace nb {

reply_view::reply_view(std::ostream& out, bool markdown, size_t width)
    : out_(out), markdown_(markdown), width_(width), stream_(width) {}

void reply_view::delta(std::string_view text) {
  auto shown = filter_.feed(text);
  if (shown.empty())
    return;
  streamed_any_ = true;
  out_ << (markdown_ ? stream_.feed(shown) : shown) << std::flush;
}

void reply_view::flush_stream() {
  auto rest = filter_.finish();
  if (markdown_) {
    out_ << stream_.feed(rest) << stream_.finish();
    stream_ = term::markdown_stream{width_};
  } else {
    if (!rest.empty())
      streamed_any_ = true;
    out_ << rest;
    if (streamed_any_)
      out_ << "\n";
  }
  streamed_any_ = false;
  out_ << std::flush;
}

void reply_view::stream_end() {
  flush_stream();
}

void reply_view::final_text(const std::string& text, bool streamed) {
  if (streamed) {
    stream_end();
    return;
  }
  stream_end();
  auto shown = strip_runtime_metadata(text);
  if (markdown_)
    out_ << term::render_markdown(shown, width_);
  else
    out_ << shown << "\n";
  out_ << std::flush;
}

} // namespace nb
