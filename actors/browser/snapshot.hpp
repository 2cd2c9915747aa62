// Browser: the page as the model reads it. The accessibility tree
// (Accessibility.getFullAXTree) becomes indented text, one line per
// meaningful node, with a numbered ref on every element the model can act
// on; the refs map back to DOM nodes for click, type, select, ...
// Pure: no CDP, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nb {

/// One element the model can act on.
struct snapshot_ref {
  int ref = 0;
  int64_t backend_node = 0; ///< DOM.BackendNodeId
  std::string role;
  std::string name;
};

struct page_snapshot {
  std::string text;
  std::vector<snapshot_ref> refs; ///< ref i is refs[i - 1]
  bool truncated = false;
};

/// Renders the `nodes` of an AX tree in at most `max_chars` characters
/// (a cut is said at the end). Hostile trees (cycles, depth) are bounded.
page_snapshot render_snapshot(const nlohmann::json& nodes, size_t max_chars);

/// Whether the model can act on an element of this role.
bool interactive_role(const std::string& role);

} // namespace nb
