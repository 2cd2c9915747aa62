#include "actors/skills/front_matter.hpp"

#include <sstream>
#include <vector>

#include "actors/common/strings.hpp"

namespace nb {

namespace {

using json = nlohmann::json;

size_t indent_of(const std::string& s) {
  auto a = s.find_first_not_of(' ');
  return a == std::string::npos ? s.size() : a;
}

/// A scalar: quoted string, bool, number, inline JSON, or plain text.
json scalar(const std::string& raw) {
  auto v = trim_space(raw);
  if (v.empty())
    return nullptr;
  if (v == "true" || v == "yes")
    return true;
  if (v == "false" || v == "no")
    return false;
  if (v.front() == '{' || v.front() == '[' || v.front() == '"') {
    auto j = json::parse(v, nullptr, false);
    if (!j.is_discarded())
      return j;
  }
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'')
    return v.substr(1, v.size() - 2);
  return v;
}

/// Parses lines [i, end) indented deeper than `indent` into an object or a
/// list; advances i.
json block(const std::vector<std::string>& lines, size_t& i, size_t indent) {
  json out;
  while (i < lines.size()) {
    const auto& line = lines[i];
    if (trim_space(line).empty() || trim_space(line)[0] == '#') {
      ++i;
      continue;
    }
    auto ind = indent_of(line);
    if (ind <= indent && indent != std::string::npos)
      break;
    auto t = trim_space(line);
    if (t.rfind("- ", 0) == 0 || t == "-") {
      if (!out.is_array())
        out = json::array();
      out.push_back(scalar(t.size() > 1 ? t.substr(2) : ""));
      ++i;
      continue;
    }
    auto colon = t.find(':');
    if (colon == std::string::npos) {
      ++i;
      continue;
    }
    if (!out.is_object())
      out = json::object();
    auto key = trim_space(t.substr(0, colon));
    auto rest = trim_space(t.substr(colon + 1));
    ++i;
    if (rest.empty())
      out[key] = block(lines, i, ind);
    else
      out[key] = scalar(rest);
  }
  return out.is_null() ? json(nullptr) : out;
}

} // namespace

front_matter parse_front_matter(const std::string& text) {
  front_matter out;
  std::vector<std::string> lines;
  std::istringstream in{text};
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r')
      l.pop_back();
    lines.push_back(std::move(l));
  }
  if (lines.empty() || trim_space(lines[0]) != "---") {
    out.body = text;
    return out;
  }
  size_t close = 1;
  while (close < lines.size() && trim_space(lines[close]) != "---")
    ++close;
  if (close == lines.size()) {
    out.error = "front matter opened with '---' but never closed";
    out.body = text;
    return out;
  }
  out.present = true;
  std::vector<std::string> head(lines.begin() + 1, lines.begin() + close);
  size_t i = 0;
  auto fields = block(head, i, std::string::npos);
  if (fields.is_object())
    out.fields = std::move(fields);
  for (size_t k = close + 1; k < lines.size(); ++k) {
    out.body += lines[k];
    if (k + 1 < lines.size())
      out.body += '\n';
  }
  auto a = out.body.find_first_not_of("\n");
  out.body = a == std::string::npos ? std::string{} : out.body.substr(a);
  return out;
}

} // namespace nb
