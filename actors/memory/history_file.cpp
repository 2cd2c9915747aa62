#include "actors/memory/history_file.hpp"
#include "actors/memory/history_tail.hpp"

#include "actors/memory/memory_lock.hpp"
#include "config/atomic_file.hpp"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>


#include <nlohmann/json.hpp>

namespace nb {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string file_of(const std::string& ws) {
  return ws + "/memory/history.jsonl";
}

std::string cursor_file_of(const std::string& ws) {
  return ws + "/memory/.cursor";
}

std::string capped(const std::string& s) {
  if (s.size() <= history_entry_cap)
    return s;
  size_t cut = history_entry_cap;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
    --cut;
  return s.substr(0, cut) + "\n... (truncated)";
}

} // namespace

std::string history_timestamp() {
  auto now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

namespace {

/// One line of history.jsonl as an entry; false when it is not one.
bool parse_history_line(const std::string& line, history_entry& e) {
  auto j = json::parse(line, nullptr, false);
  if (!j.is_object() || !j.value("content", json()).is_string()
      || !j.value("cursor", json()).is_number_integer())
    return false;
  e.cursor = j["cursor"].get<int64_t>();
  e.content = j["content"].get<std::string>();
  if (j.value("timestamp", json()).is_string())
    e.timestamp = j["timestamp"].get<std::string>();
  if (j.value("session_key", json()).is_string())
    e.session_key = j["session_key"].get<std::string>();
  return true;
}

bool blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

} // namespace

std::vector<history_entry> read_history(const std::string& workspace,
                                        int* skipped) {
  std::vector<history_entry> out;
  int bad = 0;
  try {
    std::ifstream in{file_of(workspace)};
    for (std::string line; std::getline(in, line);) {
      if (blank(line))
        continue;
      history_entry e;
      if (parse_history_line(line, e))
        out.push_back(std::move(e));
      else
        ++bad;
    }
  } catch (const std::exception&) {
    ++bad;
  }
  if (skipped)
    *skipped = bad;
  return out;
}

std::vector<history_entry> read_history_tail(const std::string& workspace,
                                             size_t max_entries,
                                             size_t max_bytes) {
  std::vector<history_entry> out;
  try {
    std::ifstream in{file_of(workspace), std::ios::binary | std::ios::ate};
    if (!in || max_entries == 0)
      return out;
    auto size = static_cast<int64_t>(in.tellg());
    // Blocks from the end until the tail holds max_entries lines (and one
    // more, whose end marks the first whole line) or max_bytes.
    std::string tail;
    int64_t at = size;
    size_t lines = 0;
    constexpr int64_t block = 64 * 1024;
    while (at > 0 && lines <= max_entries && tail.size() < max_bytes) {
      auto n = std::min(block, at);
      at -= n;
      std::string part(static_cast<size_t>(n), '\0');
      in.seekg(at);
      in.read(part.data(), n);
      lines += static_cast<size_t>(std::count(part.begin(), part.end(), '\n'));
      tail.insert(0, part);
    }
    std::istringstream text{std::move(tail)};
    std::string line;
    if (at > 0)
      std::getline(text, line); // a line cut at the front
    std::vector<history_entry> all;
    while (std::getline(text, line)) {
      history_entry e;
      if (!blank(line) && parse_history_line(line, e))
        all.push_back(std::move(e));
    }
    auto from = all.size() > max_entries ? all.size() - max_entries : 0;
    out.assign(
      std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(from)),
      std::make_move_iterator(all.end()));
  } catch (const std::exception&) {
    out.clear();
  }
  return out;
}

int64_t latest_history_cursor(const std::string& workspace) {
  int64_t latest = 0;
  for (auto& e : read_history(workspace))
    latest = std::max(latest, e.cursor);
  std::ifstream in{cursor_file_of(workspace)};
  std::string text;
  if (in && std::getline(in, text)) {
    try {
      size_t used = 0;
      auto counter = std::stoll(text, &used);
      // The original ignores a counter it cannot read or below zero.
      if (counter >= 0 && text.find_first_not_of(" \t\r", used)
                            == std::string::npos)
        latest = std::max(latest, static_cast<int64_t>(counter));
    } catch (const std::exception&) {
    }
  }
  return latest;
}

std::optional<history_entry> append_history(const std::string& workspace,
                                            const std::string& content,
                                            const std::string& session_key,
                                            std::string& error) {
  try {
    std::error_code ec;
    fs::create_directories(workspace + "/memory", ec);
    // Reading the last cursor and appending the next one is one step.
    memory_lock lock{workspace};
    // The original starts at 1 (Dream takes cursors > 0).
    int64_t next = latest_history_cursor(workspace) + 1;
    history_entry e{next, history_timestamp(), capped(content), session_key};
    json line{{"cursor", e.cursor}, {"timestamp", e.timestamp},
              {"content", e.content}};
    if (!session_key.empty())
      line["session_key"] = session_key;
    error = append_file_synced(file_of(workspace), line.dump() + "\n", 0644);
    if (!error.empty())
      return std::nullopt;
    // The original's counter (nanobot/agent/memory.py append_history: the
    // bare number, written after the entry). The entry is in: a failure
    // here costs only the counter, which the next append rewrites.
    replace_file_atomic(cursor_file_of(workspace), std::to_string(e.cursor),
                        0644);
    return e;
  } catch (const std::exception& ex) {
    error = std::string{"cannot append to history: "} + ex.what();
    return std::nullopt;
  }
}

int migrate_legacy_history(const std::string& workspace, std::string& error) {
  auto legacy = workspace + "/memory/HISTORY.md";
  std::error_code ec;
  if (!fs::exists(legacy, ec))
    return 0;
  std::ifstream in{legacy};
  std::ostringstream ss;
  ss << in.rdbuf();
  auto text = ss.str();
  std::vector<std::string> paragraphs;
  std::string cur;
  std::istringstream lines{text};
  for (std::string l; std::getline(lines, l);) {
    if (l.find_first_not_of(" \t\r") == std::string::npos) {
      if (!cur.empty())
        paragraphs.push_back(cur);
      cur.clear();
    } else {
      cur += (cur.empty() ? "" : "\n") + l;
    }
  }
  if (!cur.empty())
    paragraphs.push_back(cur);
  int moved = 0;
  for (auto& p : paragraphs) {
    if (!append_history(workspace, p, "", error))
      return moved;
    ++moved;
  }
  auto bak = legacy + ".bak";
  for (int i = 1; fs::exists(bak, ec); ++i)
    bak = legacy + ".bak." + std::to_string(i);
  fs::rename(legacy, bak, ec);
  if (ec)
    error = "moved HISTORY.md but could not rename it: " + ec.message();
  return moved;
}

std::string recent_history_section(const std::vector<history_entry>& all,
                                   const std::string& session_key,
                                   size_t max_entries, size_t max_chars,
                                   const std::string& skip_content) {
  std::vector<std::string> lines;
  size_t total = 0;
  for (auto i = all.rbegin(); i != all.rend() && lines.size() < max_entries;
       ++i) {
    if (i->session_key != session_key || i->content == skip_content)
      continue;
    auto line = "- [" + i->timestamp + "] " + i->content;
    if (total + line.size() + 1 > max_chars)
      break;
    total += line.size() + 1;
    lines.push_back(std::move(line));
  }
  if (lines.empty())
    return {};
  std::string out = "# Recent History";
  for (auto i = lines.rbegin(); i != lines.rend(); ++i)
    out += "\n" + *i;
  return out;
}

} // namespace nb
