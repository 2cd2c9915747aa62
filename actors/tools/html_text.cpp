#include "actors/tools/html_text.hpp"
#include "actors/common/strings.hpp"

#include <cctype>
#include <cstdint>
#include <set>

namespace nb {

namespace {

void put_utf8(std::string& out, uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Value of attribute `name` in a tag's text ("" when absent).
std::string attribute(std::string_view tag, std::string_view name) {
  auto low = ascii_lower(tag);
  size_t at = 0;
  while ((at = low.find(name, at)) != std::string::npos) {
    bool word_start = at > 0 && std::isspace(static_cast<unsigned char>(
                                  low[at - 1]));
    size_t i = at + name.size();
    while (i < low.size() && low[i] == ' ')
      ++i;
    if (!word_start || i >= low.size() || low[i] != '=') {
      at += name.size();
      continue;
    }
    ++i;
    while (i < low.size() && low[i] == ' ')
      ++i;
    if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
      auto q = tag[i];
      auto end = tag.find(q, i + 1);
      return std::string{tag.substr(i + 1, end == std::string_view::npos
                                             ? std::string_view::npos
                                             : end - i - 1)};
    }
    auto end = tag.find_first_of(" >", i);
    return std::string{tag.substr(i, end == std::string_view::npos
                                       ? std::string_view::npos
                                       : end - i)};
  }
  return {};
}

// Collapses runs of spaces; at most one blank line in a row.
std::string tidy(const std::string& s) {
  std::string out;
  int newlines = 0;
  bool space = false;
  for (char c : s) {
    if (c == '\n') {
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      if (newlines < 2 && !out.empty())
        out.push_back('\n');
      ++newlines;
      space = false;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
    } else {
      if (space && newlines == 0 && !out.empty())
        out.push_back(' ');
      space = false;
      newlines = 0;
      out.push_back(c);
    }
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
    out.pop_back();
  return out;
}

} // namespace

std::string decode_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    auto semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out.push_back('&');
      continue;
    }
    auto name = s.substr(i + 1, semi - i - 1);
    if (!name.empty() && name[0] == '#') {
      uint32_t cp = 0;
      bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
      bool ok = name.size() > (hex ? 2u : 1u);
      for (size_t k = hex ? 2 : 1; k < name.size() && ok; ++k) {
        auto c = static_cast<unsigned char>(name[k]);
        if (hex && std::isxdigit(c))
          cp = cp * 16 + static_cast<uint32_t>(std::isdigit(c) ? c - '0'
                                                   : (c | 0x20) - 'a' + 10);
        else if (!hex && std::isdigit(c))
          cp = cp * 10 + (c - '0');
        else
          ok = false;
        if (cp > 0x10FFFF)
          cp = 0x110000;
      }
      if (ok) {
        put_utf8(out, cp);
        i = semi;
        continue;
      }
    }
    static const std::pair<const char*, uint32_t> named[] = {
      {"amp", '&'},    {"lt", '<'},     {"gt", '>'},     {"quot", '"'},
      {"apos", '\''},  {"nbsp", 0xA0},  {"mdash", 0x2014}, {"ndash", 0x2013},
      {"hellip", 0x2026}, {"copy", 0xA9}, {"reg", 0xAE},  {"laquo", 0xAB},
      {"raquo", 0xBB}, {"rsquo", 0x2019}, {"lsquo", 0x2018},
      {"rdquo", 0x201D}, {"ldquo", 0x201C}};
    bool hit = false;
    for (auto& [n, cp] : named)
      if (name == n) {
        put_utf8(out, cp == 0xA0 ? ' ' : cp);
        hit = true;
        break;
      }
    if (hit)
      i = semi;
    else
      out.push_back('&');
  }
  return out;
}

std::string html_title(std::string_view html) {
  auto low = ascii_lower(html.substr(0, 200000));
  auto open = low.find("<title");
  if (open == std::string::npos)
    return {};
  auto start = low.find('>', open);
  auto end = low.find("</title", start == std::string::npos ? open : start);
  if (start == std::string::npos || end == std::string::npos)
    return {};
  return tidy(decode_entities(html.substr(start + 1, end - start - 1)));
}

std::string html_to_text(std::string_view html, bool markdown) {
  static const std::set<std::string> skip{"script", "style",  "noscript",
                                          "svg",    "head",   "template",
                                          "iframe", "object", "canvas"};
  static const std::set<std::string> block{
    "p",  "div",  "br",  "tr",      "table",  "section", "article",
    "ul", "ol",   "hr",  "header",  "footer", "nav",     "blockquote",
    "pre", "form", "main", "aside", "dl",     "dt",      "dd",
    "figure", "figcaption", "h1", "h2", "h3", "h4", "h5", "h6"};
  std::string raw;
  raw.reserve(html.size() / 2);
  std::string link;
  size_t link_start = 0;
  size_t i = 0;
  while (i < html.size()) {
    char c = html[i];
    if (c != '<') {
      raw.push_back(c);
      ++i;
      continue;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      auto end = html.find("-->", i + 4);
      i = end == std::string_view::npos ? html.size() : end + 3;
      continue;
    }
    auto close = html.find('>', i);
    if (close == std::string_view::npos)
      break;
    auto tag = html.substr(i + 1, close - i - 1);
    i = close + 1;
    bool ending = !tag.empty() && tag[0] == '/';
    auto name_start = ending ? 1u : 0u;
    auto name_end = tag.find_first_of(" \t\r\n/>", name_start);
    auto name = ascii_lower(tag.substr(
      name_start, name_end == std::string_view::npos ? std::string_view::npos
                                                     : name_end - name_start));
    if (!ending && skip.count(name)) {
      auto low_end = "</" + name;
      // Find the closing tag case-insensitively.
      size_t j = i;
      while (true) {
        j = html.find("</", j);
        if (j == std::string_view::npos
            || ascii_lower(html.substr(j, low_end.size())) == low_end)
          break;
        j += 2;
      }
      if (j == std::string_view::npos) {
        i = html.size();
      } else {
        auto gt = html.find('>', j);
        i = gt == std::string_view::npos ? html.size() : gt + 1;
      }
      continue;
    }
    if (markdown && name.size() == 2 && name[0] == 'h' && name[1] >= '1'
        && name[1] <= '6') {
      raw += "\n\n";
      if (!ending)
        raw += std::string(static_cast<size_t>(name[1] - '0'), '#') + " ";
      continue;
    }
    if (name == "li" && !ending) {
      raw += markdown ? "\n- " : "\n";
      continue;
    }
    if (markdown && name == "a") {
      if (!ending) {
        link = attribute(tag, "href");
        link_start = raw.size();
        raw += "[";
      } else if (link_start < raw.size()) {
        if (link.empty() || link[0] == '#'
            || link.rfind("javascript:", 0) == 0)
          raw.erase(link_start, 1);
        else
          raw += "](" + link + ")";
        link.clear();
        link_start = raw.size() + 1;
      }
      continue;
    }
    if (block.count(name))
      raw += (name == "br" || name == "tr" || name == "dt" || name == "dd")
               ? "\n"
               : "\n\n";
    else if (name == "td" || name == "th")
      raw += " ";
  }
  return tidy(decode_entities(raw));
}

} // namespace nb
