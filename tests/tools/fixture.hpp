// Test support for the tools: a throwaway directory tree with a workspace,
// a directory outside it and a fake HOME, all removed afterwards.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "actors/tools/registry.hpp"

namespace nb::test {

/// <root>/ws (the workspace, with src/), <root>/outside/secret.txt,
/// <root>/ws-evil/secret.txt, <root>/home (HOME while the tree lives).
struct temp_tree {
  temp_tree();
  ~temp_tree();
  temp_tree(const temp_tree&) = delete;
  temp_tree& operator=(const temp_tree&) = delete;

  std::string root;
  std::string ws;
  std::string outside;

  /// A tool context for the workspace.
  tool_context ctx(bool restrict = true) const;

  /// Writes `content` to `rel` below root, creating directories.
  void put(const std::string& rel, const std::string& content) const;

  /// Returns the content of `rel` below root ("" when missing).
  std::string get(const std::string& rel) const;

  /// Returns whether `rel` below root exists (symlinks not followed).
  bool exists(const std::string& rel) const;

private:
  std::string old_home_;
  bool had_home_ = false;
};

/// Settings whose workspace is `ws`.
settings settings_for(const std::string& ws);

/// Runs `name` with `args` through the built-in registry.
tool_output run(const tool_context& ctx, const std::string& name,
                const nlohmann::json& args);

/// Runs `name` with raw argument text through the built-in registry.
tool_output run_raw(const tool_context& ctx, const std::string& name,
                    const std::string& arguments_json);

/// Returns the content inside an untrusted-content frame (the text as it
/// is when it carries no frame).
std::string unframed(const std::string& text);

/// Returns whether `text` contains `part`.
bool has(const std::string& text, const std::string& part);

} // namespace nb::test
