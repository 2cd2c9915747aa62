// Which field of a JSON text a byte belongs to, for errors that name the
// field (invalid UTF-8 in a request body, say) where a parser only gives a
// byte offset.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nb {

/// The path of the value that holds byte `offset` of `json_text`, written
/// as `messages[0].content`; "a key in messages[0]" when the byte is inside
/// an object key; "the document" at the top level. Works on broken text as
/// far as it can read it; never throws. Key names in the path are cut to 64
/// bytes.
std::string json_path_at(std::string_view json_text, size_t offset);

} // namespace nb
