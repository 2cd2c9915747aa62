#include "actors/common/markdown_inline.hpp"

#include <functional>
#include <regex>

namespace nb {

namespace {

// While parsing, code and links are cut out as "\x01<n>\x01" (no other rule
// may touch them) and styles are marked with one control byte each at their
// start and end. Control bytes are not word characters, so the rules for
// italics (word edges) see a marker as they would see punctuation.
constexpr char md_atom = '\x01';
constexpr char md_bold_on = '\x02', md_bold_off = '\x03';
constexpr char md_italic_on = '\x04', md_italic_off = '\x05';
constexpr char md_strike_on = '\x06', md_strike_off = '\x07';

std::string
md_replace_all(const std::string& s, const std::regex& re,
               const std::function<std::string(const std::smatch&)>& f) {
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re);
       it != std::sregex_iterator(); ++it) {
    out += s.substr(last, it->position() - last);
    out += f(*it);
    last = it->position() + it->length();
  }
  return out + s.substr(last);
}

std::string md_marked(char on, const std::string& inner, char off) {
  return std::string(1, on) + inner + std::string(1, off);
}

} // namespace

std::vector<md_span> parse_markdown_inline(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char c : text)
    if (c < '\x01' || c > '\x07')
      s += c;
  std::vector<md_span> atoms;
  auto put = [&](md_span a) {
    atoms.push_back(std::move(a));
    return md_marked(md_atom, std::to_string(atoms.size() - 1), md_atom);
  };
  static const std::regex code{R"(`([^`\n]+)`)"};
  s = md_replace_all(s, code, [&](const std::smatch& m) {
    md_span a;
    a.text = m[1].str();
    a.code = true;
    return put(std::move(a));
  });
  static const std::regex link{R"(\[([^\]\n]+)\]\(([^)\s]+)\))"};
  s = md_replace_all(s, link, [&](const std::smatch& m) {
    md_span a;
    a.text = m[1].str();
    a.url = m[2].str();
    return put(std::move(a));
  });
  static const std::regex bold{R"(\*\*([^*\n]+?)\*\*|__([^_\n]+?)__)"};
  s = md_replace_all(s, bold, [](const std::smatch& m) {
    return md_marked(md_bold_on, m[1].matched ? m[1].str() : m[2].str(),
                     md_bold_off);
  });
  static const std::regex strike{R"(~~([^~\n]+?)~~)"};
  s = md_replace_all(s, strike, [](const std::smatch& m) {
    return md_marked(md_strike_on, m[1].str(), md_strike_off);
  });
  // Single-marker italics only at word edges: snake_case and 2*3 stay.
  static const std::regex italic{
    R"((^|[^\w*])\*([^*\s][^*\n]*?)\*(?=[^\w*]|$)|(^|[^\w])_([^_\s][^_\n]*?)_(?=[^\w]|$))"};
  s = md_replace_all(s, italic, [](const std::smatch& m) {
    if (m[2].matched)
      return m[1].str() + md_marked(md_italic_on, m[2].str(), md_italic_off);
    return m[3].str() + md_marked(md_italic_on, m[4].str(), md_italic_off);
  });

  std::vector<md_span> out;
  md_span style; // the styles in force; its text is the run being built
  auto add = [&](md_span run) {
    if (run.text.empty())
      return;
    // Plain text joins the run before it; code and links stay their own.
    bool atom = run.code || !run.url.empty();
    if (!atom && !out.empty() && !out.back().code && out.back().url.empty()
        && out.back().bold == run.bold && out.back().italic == run.italic
        && out.back().strike == run.strike)
      out.back().text += run.text;
    else
      out.push_back(std::move(run));
  };
  auto flush = [&] {
    add(style);
    style.text.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
      case md_bold_on:
      case md_bold_off:
        flush();
        style.bold = c == md_bold_on;
        break;
      case md_italic_on:
      case md_italic_off:
        flush();
        style.italic = c == md_italic_on;
        break;
      case md_strike_on:
      case md_strike_off:
        flush();
        style.strike = c == md_strike_on;
        break;
      case md_atom: {
        flush();
        auto end = s.find(md_atom, i + 1);
        size_t n = std::stoul(s.substr(i + 1, end - i - 1));
        md_span a = atoms[n];
        a.bold = a.bold || style.bold;
        a.italic = a.italic || style.italic;
        a.strike = a.strike || style.strike;
        add(std::move(a));
        i = end;
        break;
      }
      default: style.text += c;
    }
  }
  flush();
  return out;
}

} // namespace nb
