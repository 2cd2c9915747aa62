#include "actors/store/session_head.hpp"

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

#include "actors/common/iso_time.hpp"
#include "actors/store/session_format.hpp"

namespace nb::session_head {

std::string read_head(int fd, off_t size) {
  std::string head;
  for (size_t want : {size_t{4096}, size_t{64 * 1024}}) {
    auto n = std::min(want, static_cast<size_t>(size));
    if (n <= head.size())
      break;
    head.resize(n);
    auto got = ::pread(fd, head.data(), n, 0);
    head.resize(got > 0 ? static_cast<size_t>(got) : 0);
    auto nl = head.find('\n');
    if (nl != std::string::npos && head.find('\n', nl + 1) != std::string::npos)
      break;
  }
  return head;
}

bool holds_provider_state(std::string_view head) {
  auto nl = head.find('\n');
  if (nl == std::string_view::npos)
    return false;
  auto second = head.substr(nl + 1);
  return session_format::is_provider_state_line(
    second.substr(0, second.find('\n')));
}

// The original orders its sessions by the metadata line's updated_at (the
// WebUI list, the heartbeat's choice of chat): an append moves it to now.
// In place, as the same number of characters, so the file is not rewritten
// for it; without an fsync of its own (the messages already are on disk;
// this date is for ordering). Not there as a plain timestamp of that
// length (within the first 4 KiB): left as it is.
void refresh_updated_at(int fd, std::string_view head) {
  auto span = session_format::updated_at_span(head.substr(0, 4096));
  auto now = iso_now();
  if (!span || span->second != now.size())
    return;
  // pwrite on an O_APPEND handle appends (Linux): in place without it.
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_APPEND) == 0)
    (void) !::pwrite(fd, now.data(), now.size(),
                     static_cast<off_t>(span->first));
}

} // namespace nb::session_head
