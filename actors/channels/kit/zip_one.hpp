// A ZIP archive holding one file, stored (not compressed): for platforms
// that refuse some attachments as they are but take them zipped
// (DingTalk's upload refuses raw HTML, as the original notes).
#pragma once

#include <string>

namespace nb::chan {

/// The archive's bytes: `bytes` as the entry `name`.
std::string zip_one(const std::string& name, const std::string& bytes);

} // namespace nb::chan
