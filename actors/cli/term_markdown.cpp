#include "actors/cli/term_markdown.hpp"

#include <algorithm>
#include <vector>

#include "actors/cli/term_text.hpp"
#include "actors/common/markdown_inline.hpp"

namespace nb::term {

namespace {

// The palette, after Rich's default Markdown theme.
constexpr style md_plain{};
constexpr style md_bold{.bold = true};
constexpr style md_dim{.dim = true};
constexpr style md_bullet{.bold = true, .fg = 33};      // bold yellow
constexpr style md_number{.fg = 33};                    // yellow
constexpr style md_quote_bar{.fg = 35};                 // magenta
constexpr style md_inline_code{.bold = true, .fg = 36}; // bold cyan
constexpr style md_link_text{.fg = 94};                 // bright blue
constexpr style md_link_url{.underline = true, .fg = 34};

style md_heading_style(int level) {
  switch (level) {
    case 1:
    case 3: return md_bold;
    case 2: return style{.bold = true, .underline = true};
    case 4: return style{.bold = true, .dim = true};
    case 5: return style{.underline = true};
    default: return style{.italic = true};
  }
}

/// The inline runs of `text` over a base style; soft breaks become spaces
/// (the wrap decides where lines end, as Rich does).
std::vector<run> md_runs(const std::string& text, const style& base) {
  std::string joined = text;
  std::replace(joined.begin(), joined.end(), '\n', ' ');
  std::vector<run> out;
  for (const auto& s : parse_markdown_inline(joined)) {
    style st =
      base.with(style{.bold = s.bold, .italic = s.italic, .strike = s.strike});
    if (s.code) {
      out.push_back(run{s.text, st.with(md_inline_code)});
    } else if (!s.url.empty()) {
      if (s.text != s.url) {
        out.push_back(run{s.text, st.with(md_link_text)});
        out.push_back(run{" (", st});
        out.push_back(run{s.url, st.with(md_link_url)});
        out.push_back(run{")", st});
      } else {
        out.push_back(run{s.url, st.with(md_link_url)});
      }
    } else {
      out.push_back(run{s.text, st});
    }
  }
  return out;
}

std::string md_repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

std::string md_lines(const std::vector<line>& lines, const std::string& first,
                     const std::string& rest) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i)
    out += (i == 0 ? first : rest) + emit(lines[i]) + "\n";
  return out;
}

/// A level-1 title: centred in a heavy box as wide as the screen.
std::string md_title(const md_block& b, size_t width) {
  size_t inner = width > 4 ? width - 4 : 1;
  std::string out = "┏" + md_repeat("━", inner + 2) + "┓\n";
  for (auto& l : wrap(md_runs(b.text, md_bold), inner)) {
    size_t w = 0;
    for (auto& r : l)
      w += display_width(r.text);
    size_t left = (inner - std::min(w, inner)) / 2;
    out += "┃ " + std::string(left, ' ') + emit(l)
           + std::string(inner - std::min(w, inner) - left, ' ') + " ┃\n";
  }
  return out + "┗" + md_repeat("━", inner + 2) + "┛\n";
}

/// Code as written, in a rounded box with the language in its top edge;
/// lines wider than the box continue on the next line.
std::string md_code(const md_block& b, size_t width) {
  size_t inner = width > 4 ? width - 4 : 1;
  std::string label = b.lang.empty() ? "" : " " + b.lang + " ";
  size_t label_w = display_width(label);
  std::string top = "╭─" + label;
  top += md_repeat("─", inner + 1 > label_w ? inner + 1 - label_w : 0) + "╮";
  std::string out = sgr(md_dim) + top + "\033[0m\n";
  std::string body = b.text;
  if (!body.empty() && body.back() == '\n')
    body.pop_back();
  std::string edge = sgr(md_dim) + "│" + "\033[0m";
  size_t start = 0;
  while (true) {
    auto nl = body.find('\n', start);
    std::string src = body.substr(start, nl - start);
    std::string expanded;
    for (char c : src)
      expanded += c == '\t' ? std::string(4, ' ') : std::string(1, c);
    for (auto& piece : cut(expanded, inner))
      out += edge + " " + piece
             + std::string(inner - std::min(display_width(piece), inner), ' ')
             + " " + edge + "\n";
    if (nl == std::string::npos)
      break;
    start = nl + 1;
  }
  return out + sgr(md_dim) + "╰" + md_repeat("─", inner + 2) + "╯"
         + "\033[0m\n";
}

std::string md_item(const md_block& b, size_t width) {
  size_t indent = static_cast<size_t>(b.level) * 3;
  std::string marker = b.number.empty() ? "•" : b.number;
  size_t marker_w = display_width(marker) + 2; // a space either side
  size_t used = indent + marker_w;
  size_t text_w = width > used + 1 ? width - used : 1;
  std::string pad(indent, ' ');
  auto lines = wrap(md_runs(b.text, md_plain), text_w);
  auto first = pad + " "
               + emit({run{marker, b.number.empty() ? md_bullet : md_number}})
               + " ";
  return md_lines(lines, first, pad + std::string(marker_w, ' '));
}

std::string md_quote(const md_block& b, size_t width) {
  std::string inner;
  const md_block* prev = nullptr;
  for (const auto& c : b.children) {
    inner += render_block(c, prev, width > 3 ? width - 2 : 1);
    prev = &c;
  }
  std::string bar = emit({run{"▌", md_quote_bar}}) + " ";
  std::string out;
  size_t start = 0;
  while (start < inner.size()) {
    auto nl = inner.find('\n', start);
    out += bar + inner.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  return out;
}

} // namespace

std::string render_block(const md_block& b, const md_block* prev,
                         size_t width) {
  if (width == 0)
    width = 1;
  std::string out;
  bool tight = prev && prev->kind == md_block_kind::list_item
               && b.kind == md_block_kind::list_item;
  if (prev && !tight)
    out += "\n";
  switch (b.kind) {
    case md_block_kind::paragraph:
      return out + md_lines(wrap(md_runs(b.text, md_plain), width), "", "");
    case md_block_kind::heading:
      if (b.level == 1)
        return out + md_title(b, width);
      return out
             + md_lines(wrap(md_runs(b.text, md_heading_style(b.level)), width),
                        "", "");
    case md_block_kind::list_item: return out + md_item(b, width);
    case md_block_kind::quote: return out + md_quote(b, width);
    case md_block_kind::code: return out + md_code(b, width);
    case md_block_kind::rule:
      return out + emit({run{md_repeat("─", width), md_dim}}) + "\n";
  }
  return out;
}

std::string render_markdown(std::string_view md, size_t width) {
  auto blocks = parse_markdown_blocks(md);
  std::string out;
  for (size_t i = 0; i < blocks.size(); ++i)
    out += render_block(blocks[i], i ? &blocks[i - 1] : nullptr, width);
  return out;
}

std::string markdown_stream::feed(std::string_view delta) {
  text_ += delta;
  auto complete = text_.rfind('\n');
  if (complete == std::string::npos)
    return {};
  auto blocks =
    parse_markdown_blocks(std::string_view{text_}.substr(0, complete));
  std::string out;
  // The last block may still grow: only those before it are final.
  for (; blocks.size() > 1 && shown_ < blocks.size() - 1; ++shown_)
    out += render_block(blocks[shown_], shown_ ? &blocks[shown_ - 1] : nullptr,
                        width_);
  return out;
}

std::string markdown_stream::finish() {
  auto blocks = parse_markdown_blocks(text_);
  std::string out;
  for (; shown_ < blocks.size(); ++shown_)
    out += render_block(blocks[shown_], shown_ ? &blocks[shown_ - 1] : nullptr,
                        width_);
  return out;
}

} // namespace nb::term
