// Small HTTP pieces of the WebSocket server: request targets, WebUI file
// names and their content types. Pure, no Beast.
#pragma once

#include <map>
#include <string>

namespace nb::ws {

/// Percent- and '+'-decoding of a URL component.
std::string url_decode(const std::string& s);

struct target_parts {
  std::string path;
  std::map<std::string, std::string> query;
};

/// "/path/?a=1&b=2" -> path "/path" and the decoded query.
target_parts split_target(const std::string& target);

/// The Content-Type for a WebUI file, by extension.
const char* content_type(const std::string& name);

/// A file name the WebUI may serve: no directories, no dot files.
bool plain_name(const std::string& name);

} // namespace nb::ws
