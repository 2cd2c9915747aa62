#include "actors/memory/memory_file.hpp"

#include <fstream>
#include <sstream>

#include "actors/memory/memory_lock.hpp"
#include "config/atomic_file.hpp"

namespace nb {

namespace {

/// Where the next fact goes: the end of the facts section (before the next
/// "## " heading), which is appended to the file when missing.
size_t section_end(std::string& text) {
  auto h = text.find(std::string{memory_facts_heading} + "\n");
  if (h == std::string::npos) {
    text += std::string{text.empty() ? "" : "\n"} + memory_facts_heading
            + "\n";
    return text.size();
  }
  auto next = text.find("\n## ", h + 1);
  if (next == std::string::npos)
    return text.size();
  // Keep a blank line before the next heading where there was one.
  auto at = next + 1;
  while (at > h && at >= 2 && text[at - 1] == '\n' && text[at - 2] == '\n')
    --at;
  return at;
}

} // namespace

int add_memory_facts(const std::string& workspace,
                     const std::vector<std::string>& facts,
                     std::string& error) {
  if (facts.empty())
    return 0;
  try {
    memory_lock lock{workspace};
    auto path = workspace + "/memory/MEMORY.md";
    std::string text;
    {
      std::ifstream in{path};
      std::ostringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    if (!text.empty() && text.back() != '\n')
      text += '\n';
    int added = 0;
    for (auto& f : facts) {
      if (f.empty() || text.find("- " + f + "\n") != std::string::npos)
        continue;
      auto at = section_end(text);
      text.insert(at, "- " + f + "\n");
      ++added;
    }
    if (added == 0)
      return 0;
    auto r = replace_file_atomic(path, text, 0644);
    if (r.outcome == write_outcome::failed) {
      error = r.error;
      return -1;
    }
    return added;
  } catch (const std::exception& e) {
    error = std::string{"cannot update MEMORY.md: "} + e.what();
    return -1;
  }
}

} // namespace nb
