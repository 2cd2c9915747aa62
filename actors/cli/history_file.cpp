#include "actors/cli/history_file.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "actors/common/iso_time.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

std::string history_entry_text(const std::string& entry) {
  std::string out = "\n# " + iso_now() + "\n";
  size_t start = 0;
  while (true) {
    auto nl = entry.find('\n', start);
    out += "+" + entry.substr(start, nl - start) + "\n";
    if (nl == std::string::npos)
      return out;
    start = nl + 1;
  }
}

} // namespace

history_file::history_file(std::string path, size_t bound)
    : path_(std::move(path)), bound_(bound == 0 ? 1 : bound) {}

std::vector<std::string> history_file::load() {
  std::vector<std::string> entries;
  std::ifstream in{path_, std::ios::binary};
  if (!in)
    return entries;
  std::string line;
  std::string entry;
  bool open = false;
  auto close = [&] {
    if (open)
      entries.push_back(entry);
    entry.clear();
    open = false;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (!line.empty() && line[0] == '+') {
      if (open)
        entry += '\n';
      entry += line.substr(1);
      open = true;
    } else {
      close();
    }
  }
  close();
  if (entries.size() > bound_) {
    entries.erase(entries.begin(),
                  entries.end() - static_cast<std::ptrdiff_t>(bound_));
    std::string text;
    for (const auto& e : entries)
      text += history_entry_text(e);
    (void)replace_file_atomic(path_, text, 0600);
  }
  return entries;
}

std::string history_file::append(const std::string& entry) {
  std::error_code ec;
  std::filesystem::create_directories(
    std::filesystem::path{path_}.parent_path(), ec);
  return append_file_synced(path_, history_entry_text(entry), 0600);
}

} // namespace nb
