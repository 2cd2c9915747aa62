// Which QQ chats are groups. QQ's openids do not say, and a message to a
// group must go to /v2/groups/{id} (to a person: /v2/users/{id}); the
// sender learns it from the messages it sees and keeps the groups in
// <config dir>/qq/<name>-groups.json, so that after a restart a reply or
// a scheduled message to a group still finds its way.
#pragma once

#include <set>
#include <string>

namespace nb::qq {

class group_book {
public:
  /// Reads `path` ({"groups": [openid, ...]}); a missing file is an empty
  /// book, an unreadable one too (with `error` set).
  group_book(std::string path, std::string& error);

  bool contains(const std::string& openid) const {
    return groups_.count(openid) > 0;
  }

  /// Records a group; a new one is written to the file at once (atomic
  /// replace). "" or why the file could not be written.
  std::string add(const std::string& openid);

private:
  std::string path_;
  std::set<std::string> groups_;
};

} // namespace nb::qq
