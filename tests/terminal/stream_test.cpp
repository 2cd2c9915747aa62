// The streamed reply: rendered block by block, the same as all at once;
// --no-markdown passes the text through; runtime metadata is held back and
// dropped; the history file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "actors/cli/history_file.hpp"
#include "actors/cli/reply_filter.hpp"
#include "actors/cli/reply_view.hpp"
#include "actors/cli/term_markdown.hpp"
#include "tests/support/scratch_dir.hpp"

using nb::term::markdown_stream;
using nb::term::render_markdown;

TEST_CASE("a stream shows each block once the next has begun") {
  markdown_stream s{80};
  CHECK(s.feed("Hello **wo") == "");
  CHECK(s.feed("rld**\n\n- a") == "");
  // The paragraph is final once the list began on a complete line.
  CHECK(s.feed("\n- b\n")
        == "Hello \033[1mworld\033[0m\n\n \033[1;33m•\033[0m a\n");
  CHECK(s.finish() == " \033[1;33m•\033[0m b\n");
}

TEST_CASE("streamed in any pieces, the screen ends as rendered at once") {
  const std::string md =
    "# Title\n\nSome **bold** text\nand more.\n\n```cpp\nint x;\n\nx++;\n```\n"
    "1. one\n   - nested `code`\n2. two\n\n> quote\n\nend";
  for (size_t step : {1u, 2u, 3u, 7u, 50u}) {
    markdown_stream s{30};
    std::string out;
    for (size_t i = 0; i < md.size(); i += step)
      out += s.feed(md.substr(i, step));
    out += s.finish();
    CHECK_MESSAGE(out == render_markdown(md, 30), "step " << step);
  }
}

TEST_CASE("the reply view: rendered, or plain exactly as written") {
  const std::string md = "**bold** and `code`\n\n# Title";
  {
    std::ostringstream out;
    nb::reply_view v{out, false, 80};
    v.delta("**bold** and ");
    v.delta("`code`\n\n# Title");
    v.final_text(md, true);
    CHECK(out.str() == md + "\n");
  }
  {
    std::ostringstream out;
    nb::reply_view v{out, false, 80};
    v.final_text(md, false);
    CHECK(out.str() == md + "\n");
  }
  {
    std::ostringstream out;
    nb::reply_view v{out, true, 20};
    v.final_text(md, false);
    CHECK(out.str() == render_markdown(md, 20));
    CHECK(out.str().find("\033[1mbold") != std::string::npos);
  }
}

TEST_CASE("runtime metadata never reaches the screen, even cut in pieces") {
  const std::string reply =
    "Hi there.\n\n[Runtime Context — metadata only, not instructions]\n"
    "Current Time: 2026-12-03 10:00\nChannel: cli\n[/Runtime Context]\n\nBye.";
  CHECK(nb::strip_runtime_metadata(reply) == "Hi there.\n\nBye.");
  for (size_t step : {1u, 5u, 16u}) {
    nb::reply_filter f;
    std::string out;
    for (size_t i = 0; i < reply.size(); i += step)
      out += f.feed(reply.substr(i, step));
    out += f.finish();
    CHECK(out == "Hi there.\n\nBye.");
  }
  // Text that only starts like the marker (and the space before it) is
  // held back, then shown.
  nb::reply_filter f;
  CHECK(f.feed("see [Runtime") == "see");
  CHECK(f.finish() == " [Runtime");
}

TEST_CASE("the history file: appended per entry, loaded, bounded") {
  nb::test::scratch_dir dir;
  auto path = dir.at("history/cli");
  nb::history_file h{path, 3};
  CHECK(h.load().empty());
  CHECK(h.append("first") == "");
  CHECK(h.append("two\nlines") == "");
  CHECK(h.load() == std::vector<std::string>{"first", "two\nlines"});
  std::ifstream in{path};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  CHECK(text.find("\n+two\n+lines\n") != std::string::npos);
  for (auto e : {"c", "d", "e"})
    CHECK(h.append(e) == "");
  CHECK(h.load() == std::vector<std::string>{"c", "d", "e"});
  // The file itself was cut to the bound.
  CHECK(nb::history_file{path, 100}.load().size() == 3);
}
