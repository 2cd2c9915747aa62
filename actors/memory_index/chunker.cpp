#include "actors/memory_index/chunker.hpp"
#include "actors/common/strings.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace nb::memory {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_space(s.back()))
    s.remove_suffix(1);
  return s;
}

/// Length of a bullet marker at the start of `s` ("- ", "* ", "12. "), or 0.
size_t bullet_marker(std::string_view s) {
  if (s.size() >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+')
      && s[1] == ' ')
    return 2;
  size_t i = 0;
  while (i < s.size() && i < 4 && std::isdigit(static_cast<unsigned char>(s[i])))
    ++i;
  if (i > 0 && i + 1 < s.size() && (s[i] == '.' || s[i] == ')')
      && s[i + 1] == ' ')
    return i + 2;
  return 0;
}

std::string heading_category(std::string_view heading) {
  auto h = ascii_lower(heading);
  for (auto* w : {"about the user", "profile", "preference", "about me",
                  "people", "who i am", "user"})
    if (h.find(w) != std::string::npos)
      return "profile";
  for (auto* w : {"experience", "lesson", "what worked", "learned", "learnt"})
    if (h.find(w) != std::string::npos)
      return "experience";
  return "fact";
}

/// A piece before windowing: raw text (tags still on) and its lines.
struct piece {
  int32_t first = 0;
  int32_t last = 0;
  std::string text;
  std::string category;
};

/// Strips leading "[tag]"s into `c`.
void apply_tags(std::string& text, chunk& c) {
  for (;;) {
    auto t = trim(text);
    if (t.size() < 3 || t.front() != '[')
      break;
    auto close = t.find(']');
    if (close == std::string_view::npos || close > 16)
      break;
    auto tag = ascii_lower(t.substr(1, close - 1));
    if (tag == "profile" || tag == "experience" || tag == "fact")
      c.category = tag;
    else if (tag == "permanent")
      c.permanent = true;
    else if (tag == "important")
      c.importance = 1.0;
    else
      break;
    text = std::string{trim(t.substr(close + 1))};
  }
  if (c.permanent && c.importance < 0.8)
    c.importance = 0.8;
}

/// The longest prefix of `s` of at most `max` bytes ending on a UTF-8
/// character boundary (at least one character).
size_t utf8_cut(std::string_view s, size_t max) {
  if (s.size() <= max)
    return s.size();
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return cut == 0 ? std::min(s.size(), max) : cut;
}

/// Cuts `text` into windows (at a space near the end when there is one).
std::vector<std::string> windows(std::string_view text) {
  std::vector<std::string> out;
  if (text.size() <= chunk_window_bytes) {
    out.emplace_back(text);
    return out;
  }
  size_t at = 0;
  while (at < text.size()) {
    auto rest = text.substr(at);
    auto len = utf8_cut(rest, chunk_window_bytes);
    if (len < rest.size()) {
      auto space = rest.substr(0, len).find_last_of(" \n");
      if (space != std::string_view::npos && space > len / 2)
        len = space + 1;
    }
    out.emplace_back(trim(rest.substr(0, len)));
    if (len >= rest.size())
      break;
    auto step = len > chunk_overlap_bytes ? len - chunk_overlap_bytes : len;
    at += utf8_cut(rest, step);
  }
  return out;
}

/// Turns pieces into chunks with tags applied, windows and keys. `seen`
/// counts identical pieces by their hash (not their text: a history file
/// synced in windows keeps it across them); `total` counts the file's
/// chunks so far, for the cap.
void emit(const std::string& source, const piece& p, int64_t created,
          std::vector<chunk>& out, std::unordered_map<std::string, int>& seen,
          size_t& total) {
  if (total >= max_chunks_per_file)
    return;
  chunk base;
  base.source = source;
  base.line_start = p.first;
  base.line_end = p.last;
  base.category = p.category;
  base.created = created;
  std::string text = p.text;
  apply_tags(text, base);
  if (trim(text).empty())
    return;
  for (auto& w : windows(text)) {
    if (total >= max_chunks_per_file)
      return;
    chunk c = base;
    c.text = std::move(w);
    auto hash =
      hash_hex(c.category + (c.permanent ? "!" : "") + '\x1f' + c.text);
    auto n = seen[hash]++;
    c.key = n > 0 ? hash + "." + std::to_string(n) : hash;
    out.push_back(std::move(c));
    ++total;
  }
}

/// Bullets and paragraphs of Markdown `text`; `line0` numbers its first line.
std::vector<piece> pieces_of(std::string_view text, int32_t line0,
                             const std::string& start_category) {
  std::vector<piece> out;
  std::string category = start_category;
  piece cur;
  bool open = false;
  bool in_fence = false;
  auto flush = [&] {
    if (open && !trim(cur.text).empty())
      out.push_back(cur);
    open = false;
    cur = piece{};
  };
  int32_t line_no = line0 - 1;
  size_t at = 0;
  while (at <= text.size()) {
    auto nl = text.find('\n', at);
    auto line = text.substr(at, nl == std::string_view::npos ? text.size() - at
                                                             : nl - at);
    at = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    auto t = trim(line);
    if (t.starts_with("```")) {
      in_fence = !in_fence;
    } else if (!in_fence && t.starts_with("#")) {
      flush();
      auto h = t.find_first_not_of('#');
      category = heading_category(h == std::string_view::npos ? ""
                                                              : t.substr(h));
      continue;
    }
    if (t.empty() && !in_fence) {
      flush();
      continue;
    }
    auto marker = in_fence ? 0 : bullet_marker(t);
    bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    if (marker > 0 && !(indented && open)) {
      flush();
      open = true;
      cur.first = cur.last = line_no;
      cur.category = category;
      cur.text = std::string{t.substr(marker)};
      continue;
    }
    if (!open) {
      open = true;
      cur.first = line_no;
      cur.category = category;
    } else {
      cur.text += '\n';
    }
    cur.last = line_no;
    cur.text += std::string{t};
  }
  flush();
  return out;
}

} // namespace

bool valid_category(std::string_view c) {
  return c == "fact" || c == "profile" || c == "experience";
}

std::vector<chunk> chunk_markdown(const std::string& source,
                                  std::string_view text) {
  std::vector<chunk> out;
  std::unordered_map<std::string, int> seen;
  size_t total = 0;
  for (auto& p : pieces_of(text.substr(0, max_file_bytes), 1, "fact"))
    emit(source, p, 0, out, seen, total);
  return out;
}

void history_chunker::add_line(std::string_view line, int32_t line_no,
                               std::vector<chunk>& out) {
  if (total_ >= max_chunks_per_file || trim(line).empty())
    return;
  auto entry = nlohmann::json::parse(line, nullptr, false);
  if (!entry.is_object())
    return;
  auto content = entry.value("content", nlohmann::json());
  if (!content.is_string())
    return;
  auto stamp = entry.value("timestamp", nlohmann::json());
  int64_t created =
    stamp.is_string() ? parse_local_time(stamp.get<std::string>()) : 0;
  auto body = content.get<std::string>();
  for (auto p : pieces_of(body, 1, "fact")) {
    // A history entry is one line of the file.
    p.first = p.last = line_no;
    emit(source_, p, created, out, seen_, total_);
  }
}

std::vector<chunk> chunk_history(std::string_view text,
                                 const std::string& source) {
  std::vector<chunk> out;
  history_chunker chunker{source};
  text = text.substr(0, max_file_bytes);
  int32_t line_no = 0;
  size_t at = 0;
  while (at < text.size() && !chunker.full()) {
    auto nl = text.find('\n', at);
    auto line = text.substr(at, nl == std::string_view::npos ? text.size() - at
                                                             : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    chunker.add_line(line, ++line_no, out);
  }
  return out;
}

std::optional<std::string> without_piece(std::string_view text,
                                         std::string_view chunk_text) {
  for (auto& p : pieces_of(text, 1, "fact")) {
    chunk probe;
    std::string clean = p.text;
    apply_tags(clean, probe);
    bool found = false;
    for (auto& w : windows(clean))
      found = found || w == chunk_text;
    if (!found)
      continue;
    // Drop lines [first, last] (1-based) and their line breaks.
    std::string out;
    int32_t line_no = 0;
    size_t at = 0;
    while (at < text.size()) {
      auto nl = text.find('\n', at);
      auto end = nl == std::string_view::npos ? text.size() : nl + 1;
      ++line_no;
      if (line_no < p.first || line_no > p.last)
        out.append(text.substr(at, end - at));
      at = end;
    }
    return out;
  }
  return std::nullopt;
}

std::string normalize_text(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (is_space(c)) {
      space = !out.empty();
      continue;
    }
    if (space)
      out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  auto punct = [](char c) {
    return c == '.' || c == '!' || c == '?' || c == ',' || c == ';'
           || c == ':';
  };
  while (!out.empty() && punct(out.back()))
    out.pop_back();
  return out;
}

void text_hash::add(std::string_view text) {
  for (unsigned char c : text) {
    h_ ^= c;
    h_ *= 1099511628211ull;
  }
}

std::string text_hash::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(h_));
  return buf;
}

std::string hash_hex(std::string_view text) {
  text_hash h;
  h.add(text);
  return h.hex();
}

int64_t parse_local_time(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  std::string s{text.substr(0, 32)};
  auto n = std::sscanf(s.c_str(), "%4d-%2d-%2d%*[ T]%2d:%2d", &y, &mo, &d, &h,
                       &mi);
  if (n < 3 || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31)
    return 0;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = n >= 5 ? h : 0;
  tm.tm_min = n >= 5 ? mi : 0;
  tm.tm_isdst = -1;
  auto t = std::mktime(&tm);
  return t < 0 ? 0 : static_cast<int64_t>(t);
}

std::string local_date(int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

} // namespace nb::memory
