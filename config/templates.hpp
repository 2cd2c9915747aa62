// The workspace templates (workspace/ in the source tree), compiled into the
// binary so an installed gateway needs no source tree.
#pragma once

#include <string>
#include <vector>

namespace nb {

struct template_file {
  std::string path;    ///< relative to the workspace: "memory/MEMORY.md"
  std::string content;
};

/// Every template, sorted by path.
const std::vector<template_file>& workspace_templates();

} // namespace nb
