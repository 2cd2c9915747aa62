// Finding things in a JSON text without building its tree: which field a
// byte belongs to, for errors that name the field (invalid UTF-8 in a
// request body, say) where a parser only gives a byte offset; and where each
// element of an array is, so a text parsed once need not be written again.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nb {

/// The path of the value that holds byte `offset` of `json_text`, written
/// as `messages[0].content`; "a key in messages[0]" when the byte is inside
/// an object key; "the document" at the top level. Works on broken text as
/// far as it can read it; never throws. Key names in the path are cut to 64
/// bytes.
std::string json_path_at(std::string_view json_text, size_t offset);

/// The texts of the elements of the JSON array `json_text`, as they are
/// written there (without the whitespace around them). Meant for text a
/// parser has accepted already; on anything else the result is unspecified
/// but never reads past the text.
std::vector<std::string_view> json_array_elements(std::string_view json_text);

} // namespace nb
