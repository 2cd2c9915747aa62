#include "actors/channels/kit/markdown_html.hpp"

#include <regex>
#include <vector>

#include "actors/common/markdown_inline.hpp"

namespace nb::chan {

std::string escape_html(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string escape_attr(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '"' ? std::string{"&quot;"} : std::string(1, c);
  return out;
}

/// The runs as HTML: a tag opens where its style starts and closes where it
/// ends, innermost first, so the result is always balanced.
std::string spans_html(const std::vector<md_span>& spans) {
  std::string out;
  std::vector<std::string> open; // tag names, outermost first
  auto want = [](const md_span& s) {
    std::vector<std::string> tags;
    if (s.bold)
      tags.emplace_back("b");
    if (s.italic)
      tags.emplace_back("i");
    if (s.strike)
      tags.emplace_back("s");
    return tags;
  };
  for (const auto& s : spans) {
    auto tags = want(s);
    size_t keep = 0;
    while (keep < open.size() && keep < tags.size() && open[keep] == tags[keep])
      ++keep;
    while (open.size() > keep) {
      out += "</" + open.back() + ">";
      open.pop_back();
    }
    for (size_t i = keep; i < tags.size(); ++i) {
      out += "<" + tags[i] + ">";
      open.push_back(tags[i]);
    }
    if (s.code)
      out += "<code>" + escape_html(s.text) + "</code>";
    else if (!s.url.empty())
      out += "<a href=\"" + escape_attr(escape_html(s.url)) + "\">"
             + escape_html(s.text) + "</a>";
    else
      out += escape_html(s.text);
  }
  while (!open.empty()) {
    out += "</" + open.back() + ">";
    open.pop_back();
  }
  return out;
}

/// One line outside fenced code: its block marker (heading, quote, bullet)
/// as the chat shows it, the rest through the shared inline parser.
std::string line_html(const std::string& line) {
  static const std::regex heading{R"(^#{1,6}[ \t]+(.+)$)"};
  static const std::regex quote{R"(^>[ \t]?)"};
  static const std::regex bullet{R"(^([ \t]*)[-*+][ \t]+)"};
  std::smatch m;
  if (std::regex_match(line, m, heading))
    return "<b>" + spans_html(parse_markdown_inline(m[1].str())) + "</b>";
  std::string rest = std::regex_replace(
    line, quote, "", std::regex_constants::format_first_only);
  std::string lead;
  if (std::regex_search(rest, m, bullet)) {
    lead = m[1].str() + "• ";
    rest = m.suffix().str();
  }
  return lead + spans_html(parse_markdown_inline(rest));
}

/// Text between fences; `after_fence`: its first line goes on from the
/// line a fence closed on, so it starts no heading, quote or bullet.
std::string text_html(const std::string& text, bool after_fence) {
  std::string out;
  size_t start = 0;
  while (true) {
    auto nl = text.find('\n', start);
    auto line = text.substr(start, nl - start);
    out += start == 0 && after_fence ? spans_html(parse_markdown_inline(line))
                                     : line_html(line);
    if (nl == std::string::npos)
      return out;
    out += '\n';
    start = nl + 1;
  }
}

} // namespace

std::string markdown_to_html(const std::string& text) {
  // The parser's marker bytes have no meaning in a chat's HTML.
  std::string md;
  md.reserve(text.size());
  for (char c : text)
    if (c < '\x01' || c > '\x07')
      md += c;
  static const std::regex fence{R"(```[\w+-]*\n?([\s\S]*?)```)"};
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(md.begin(), md.end(), fence);
       it != std::sregex_iterator(); ++it) {
    out += text_html(md.substr(last, it->position() - last), last > 0);
    std::string body = (*it)[1].str();
    if (!body.empty() && body.back() == '\n')
      body.pop_back();
    out += "<pre><code>" + escape_html(body) + "</code></pre>";
    last = it->position() + it->length();
  }
  return out + text_html(md.substr(last), last > 0);
}

} // namespace nb::chan
