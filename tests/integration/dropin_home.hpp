// The original's home for the drop-in tests: tests/fixtures/nanobot-home
// copied unchanged into a temporary home, and readers for what the two
// programs write there.
#pragma once

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/store/session_files.hpp"
#include "nb_test_paths.hpp" // NB_SOURCE_DIR, NB_BINARY_DIR
#include "tests/integration/harness.hpp"
#include "tests/support/scratch_dir.hpp"

namespace nb::test::dropin {

using nlohmann::json;
namespace fs = std::filesystem;

inline const std::string fixture_id = "5f0c2a9e7b4d41e8a3c6d9b2e1f07a34";

/// HOME with the fixture's .nanobot copied in, unchanged.
struct fixture_home {
  temp_home home;
  std::string dot = (home.dir / ".nanobot").string();
  std::string ws = dot + "/workspace";
  std::string config = dot + "/config.json";

  fixture_home() {
    fs::copy(std::string{NB_SOURCE_DIR} + "/tests/fixtures/nanobot-home/.nanobot",
             dot, fs::copy_options::recursive);
  }
  std::string sessions() const {
    return dot + "/sessions/" + fixture_id;
  }
  std::vector<std::string> env(const fake_llm& llm) const {
    return {"HOME=" + home.dir.string(),
            "NANOBOT_FIXTURE_API_BASE=" + llm.base_url()};
  }
};

inline std::vector<json> lines_of(const std::string& path) {
  std::vector<json> out;
  std::istringstream in{read_all(path)};
  std::string line;
  while (std::getline(in, line))
    if (!line.empty())
      out.push_back(json::parse(line));
  return out;
}

inline std::set<std::string> keys_of(const json& j) {
  std::set<std::string> out;
  for (auto& [k, v] : j.items())
    out.insert(k);
  return out;
}

inline bool python_iso(const std::string& s) {
  static const std::regex re{
    R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$)"};
  return std::regex_match(s, re);
}

/// Session keys in a sessions folder (decoded file names).
inline std::set<std::string> session_keys(const std::string& dir) {
  std::set<std::string> out;
  for (auto& s : list_sessions(dir).sessions)
    out.insert(s.key);
  return out;
}

} // namespace nb::test::dropin
