#include "actors/channels/kit/markdown_html.hpp"

#include <functional>
#include <regex>
#include <vector>

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

/// Code is cut out first (and put back last) so no other rule touches it;
/// a placeholder is "\x01<n>\x01", which neither escaping nor the inline
/// rules can match.
struct stash {
  std::vector<std::string> parts;
  std::string put(std::string html) {
    parts.push_back(std::move(html));
    return "\x01" + std::to_string(parts.size() - 1) + "\x01";
  }
  std::string restore(const std::string& s) const {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\x01') {
        out += s[i];
        continue;
      }
      auto end = s.find('\x01', i + 1);
      if (end == std::string::npos) {
        out += s.substr(i + 1);
        break;
      }
      // Only placeholders are between two \x01 (the input has none).
      size_t n = 0;
      for (size_t k = i + 1; k < end && n < parts.size(); ++k)
        n = n * 10 + static_cast<size_t>(s[k] - '0');
      if (n < parts.size())
        out += parts[n];
      i = end;
    }
    return out;
  }
};

std::string replace_all(const std::string& s, const std::regex& re,
                        const std::function<std::string(const std::smatch&)>& f) {
  std::string out;
  auto begin = std::sregex_iterator(s.begin(), s.end(), re);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += s.substr(last, it->position() - last);
    out += f(*it);
    last = it->position() + it->length();
  }
  return out + s.substr(last);
}

std::string escape_attr(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '"' ? std::string{"&quot;"} : std::string(1, c);
  return out;
}

} // namespace

std::string markdown_to_html(const std::string& text) {
  // The text's own \x01 bytes (they have no meaning in Telegram's HTML)
  // would be taken for placeholders.
  std::string md = text;
  std::erase(md, '\x01');
  stash code;
  static const std::regex fence{R"(```[\w+-]*\n?([\s\S]*?)```)"};
  std::string s = replace_all(md, fence, [&](const std::smatch& m) {
    std::string body = m[1].str();
    if (!body.empty() && body.back() == '\n')
      body.pop_back();
    return code.put("<pre><code>" + escape_html(body) + "</code></pre>");
  });
  static const std::regex inline_code{R"(`([^`\n]+)`)"};
  s = replace_all(s, inline_code, [&](const std::smatch& m) {
    return code.put("<code>" + escape_html(m[1].str()) + "</code>");
  });
  // Links before escaping, so the URL is taken as written.
  static const std::regex link{R"(\[([^\]\n]+)\]\(([^)\s]+)\))"};
  s = replace_all(s, link, [&](const std::smatch& m) {
    return code.put("<a href=\"" + escape_attr(escape_html(m[2].str()))
                    + "\">" + escape_html(m[1].str()) + "</a>");
  });
  s = escape_html(s);
  static const std::regex heading{R"((^|\n)#{1,6}[ \t]+([^\n]+))"};
  s = std::regex_replace(s, heading, "$1<b>$2</b>");
  static const std::regex quote{R"((^|\n)&gt;[ \t]?)"};
  s = std::regex_replace(s, quote, "$1");
  static const std::regex bullet{R"((^|\n)([ \t]*)[-*+][ \t]+)"};
  s = std::regex_replace(s, bullet, "$1$2• ");
  static const std::regex bold{R"(\*\*([^*\n]+?)\*\*|__([^_\n]+?)__)"};
  s = replace_all(s, bold, [](const std::smatch& m) {
    return "<b>" + (m[1].matched ? m[1].str() : m[2].str()) + "</b>";
  });
  static const std::regex strike{R"(~~([^~\n]+?)~~)"};
  s = std::regex_replace(s, strike, "<s>$1</s>");
  // Single-marker italics only at word edges: snake_case and 2*3 stay.
  static const std::regex italic{
    R"((^|[^\w*])\*([^*\s][^*\n]*?)\*(?=[^\w*]|$)|(^|[^\w])_([^_\s][^_\n]*?)_(?=[^\w]|$))"};
  s = replace_all(s, italic, [](const std::smatch& m) {
    if (m[2].matched)
      return m[1].str() + "<i>" + m[2].str() + "</i>";
    return m[3].str() + "<i>" + m[4].str() + "</i>";
  });
  return code.restore(s);
}

} // namespace nb::chan
