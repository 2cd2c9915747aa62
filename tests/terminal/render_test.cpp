// The terminal renderer's output for each construct, byte for byte.
#include <doctest/doctest.h>

#include "actors/cli/term_markdown.hpp"
#include "actors/cli/term_text.hpp"
#include "actors/common/markdown_blocks.hpp"
#include "actors/common/markdown_inline.hpp"

using nb::term::render_markdown;

namespace {

const std::string R = "\033[0m";

std::string dim(const std::string& s) {
  return "\033[2m" + s + R;
}
std::string bullet() {
  return " \033[1;33m•" + R + " ";
}

} // namespace

TEST_CASE("inline styles: bold italic strike code and links") {
  CHECK(render_markdown("Say **hi** to *you*, ~~not~~ run `ls -l` or "
                        "[docs](https://d.x/a).",
                        80)
        == "Say \033[1mhi" + R + " to \033[3myou" + R + ", \033[9mnot" + R
             + " run \033[1;36mls -l" + R + " or \033[94mdocs" + R
             + " (\033[4;34m" + "https://d.x/a" + R + ").\n");
  // A link whose text is its address shows it once.
  CHECK(render_markdown("[https://e.x](https://e.x)", 80)
        == "\033[4;34mhttps://e.x" + R + "\n");
  // Code inside bold is both.
  CHECK(render_markdown("**run `x` now**", 80)
        == "\033[1mrun " + R + "\033[1;36mx" + R + "\033[1m now" + R + "\n");
  // snake_case and arithmetic stay as written.
  CHECK(render_markdown("snake_case_name and 2*3*4", 80)
        == "snake_case_name and 2*3*4\n");
}

TEST_CASE("paragraphs wrap at the width and blocks are a blank line apart") {
  CHECK(render_markdown("one two three four five six seven", 20)
        == "one two three four\nfive six seven\n");
  // Soft line breaks are spaces; a blank line starts a new paragraph.
  CHECK(render_markdown("one\ntwo\n\nthree", 20) == "one two\n\nthree\n");
  // A word wider than the line is cut.
  CHECK(render_markdown("abcdefghij", 4) == "abcd\nefgh\nij\n");
  // Styles carry across the break, each line closing its own.
  CHECK(render_markdown("**aaa bbb**", 4)
        == "\033[1maaa" + R + "\n\033[1mbbb" + R + "\n");
  // Wide characters take two columns.
  CHECK(nb::term::display_width("日本") == 4);
  CHECK(render_markdown("日本 語", 5) == "日本\n語\n");
}

TEST_CASE("headings: a boxed title then bold, underlined, dim, italic") {
  CHECK(render_markdown("# Hi", 12)
        == "┏━━━━━━━━━━┓\n┃    \033[1mHi" + R + "    ┃\n┗━━━━━━━━━━┛\n");
  CHECK(render_markdown("## Plan ##", 80) == "\033[1;4mPlan" + R + "\n");
  CHECK(render_markdown("### Three", 80) == "\033[1mThree" + R + "\n");
  CHECK(render_markdown("#### Four", 80) == "\033[1;2mFour" + R + "\n");
  CHECK(render_markdown("###### Six", 80) == "\033[3mSix" + R + "\n");
  CHECK(render_markdown("#hashtag", 80) == "#hashtag\n");
}

TEST_CASE("fenced code sits in a box with its language") {
  CHECK(render_markdown("```python\nprint(1)\n```", 20)
        == dim("╭─ python ─────────╮") + "\n" + dim("│") + " print(1)         "
             + dim("│") + "\n" + dim("╰──────────────────╯") + "\n");
  // No language: a plain top edge; markup inside stays as written; a tab
  // is four spaces; a line wider than the box continues below.
  CHECK(render_markdown("```\n**x**\tyy\n```", 10)
        == dim("╭────────╮") + "\n" + dim("│") + " **x**  " + dim("│") + "\n"
             + dim("│") + "    yy  " + dim("│") + "\n" + dim("╰────────╯")
             + "\n");
  // Blank lines inside the code stay.
  CHECK(render_markdown("```\na\n\nb\n```", 7)
        == dim("╭─────╮") + "\n" + dim("│") + " a   " + dim("│") + "\n"
             + dim("│") + "     " + dim("│") + "\n" + dim("│") + " b   "
             + dim("│") + "\n" + dim("╰─────╯") + "\n");
}

TEST_CASE("lists: bullets and numbers, nested, wrapped under their text") {
  CHECK(render_markdown("- a\n  - b\n    1. c\n- d", 80)
        == bullet() + "a\n   " + bullet() + "b\n       \033[33m1." + R + " c\n"
             + bullet() + "d\n");
  CHECK(render_markdown("1. first\n2) second", 80)
        == " \033[33m1." + R + " first\n \033[33m2)" + R + " second\n");
  CHECK(render_markdown("- alpha beta gamma", 14)
        == bullet() + "alpha beta\n   gamma\n");
  // A list after a paragraph is a blank line away; items are not.
  CHECK(render_markdown("Steps:\n- one\n- two\n\nDone.", 80)
        == "Steps:\n\n" + bullet() + "one\n" + bullet() + "two\n\nDone.\n");
}

TEST_CASE("quotes, rules and mixed blocks") {
  CHECK(render_markdown("> quoted *text*\n> more", 80)
        == "\033[35m▌" + R + " quoted \033[3mtext" + R + " more\n");
  CHECK(render_markdown("a\n\n---\n\nb", 5)
        == "a\n\n" + dim("─────") + "\n\nb\n");
  // A quote wraps inside its bar.
  CHECK(render_markdown("> aaa bbb", 6)
        == "\033[35m▌" + R + " aaa\n\033[35m▌" + R + " bbb\n");
}

TEST_CASE("the block parser: kinds, levels, numbers, an open fence") {
  using nb::md_block_kind;
  auto b =
    nb::parse_markdown_blocks("# T\npara\nline\n- x\n  2. y\n> q\n```sh\nls\n");
  REQUIRE(b.size() == 6);
  CHECK(b[0].kind == md_block_kind::heading);
  CHECK(b[1].text == "para\nline");
  CHECK(b[2].level == 0);
  CHECK(b[3].number == "2.");
  CHECK(b[3].level == 1);
  CHECK(b[4].kind == md_block_kind::quote);
  CHECK(b[4].children.at(0).text == "q");
  CHECK(b[5].kind == md_block_kind::code);
  CHECK(b[5].lang == "sh");
  CHECK(b[5].text == "ls\n");
}

TEST_CASE("the inline parser: runs and their styles") {
  auto s = nb::parse_markdown_inline("a **b _c_** [d](u) `e`");
  REQUIRE(s.size() == 7);
  CHECK(s[0].text == "a ");
  CHECK(s[1].text == "b ");
  CHECK(s[1].bold);
  CHECK(s[2].text == "c");
  CHECK((s[2].bold && s[2].italic));
  CHECK(s[4].url == "u");
  CHECK(s[6].code);
  // Marker bytes in the text are dropped, never taken for markers.
  CHECK(nb::parse_markdown_inline("x\x01"
                                  "0\x01\x02y")
          .at(0)
          .text
        == "x0y");
}
