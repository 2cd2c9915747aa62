// The my tool's text: values written as the original writes them (Python's
// repr of the value, a mapping's keys when it is large, a list's length
// when it is long), so a model used to the original reads the same lines.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nb {

/// Python's repr() of a JSON value: 'text' (or "text" when it holds a
/// single quote and no double one), True/False/None, [a, b], {'k': v}.
std::string py_repr(const nlohmann::ordered_json& v);

/// The original's MyTool._format_value: "key: repr" for scalars, small
/// mappings and short lists; "key: {k1, k2, ...}" for mappings of more than
/// five keys or a repr over 200 characters; "key: [N items]" for lists of
/// more than 20. `key` "" leaves the "key: " prefix out.
std::string my_format_value(const nlohmann::ordered_json& v,
                            const std::string& key);

} // namespace nb
