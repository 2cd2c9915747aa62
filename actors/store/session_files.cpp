// Reading, appending and replacing one session file.
#include "actors/store/session_files.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>
#include <optional>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actors/common/iso_time.hpp"
#include "actors/common/file_lock.hpp"
#include "actors/store/session_handles.hpp"
#include "actors/store/session_head.hpp"
#include "actors/store/posix_io.hpp"
#include "actors/store/session_conversation.hpp"
#include "actors/store/session_format.hpp"

namespace nb {

namespace {

using namespace store_io;
using namespace session_format;
using namespace session_head;

caf::expected<std::string> session_path(const std::string& dir,
                                        const std::string& key) {
  if (key.empty())
    return store_error("empty session key (directory " + dir + ")");
  return dir + "/" + session_file_name(key);
}

/// The archive mark. The original keeps it as the metadata line's
/// top-level "last_consolidated" (messages already summarised into
/// memory/history.jsonl); our sessions carry it inside the metadata object
/// under the same name (so every store has it the same way). The file
/// store maps one onto the other: loading puts the file's mark into the
/// metadata (the larger one when our earlier builds left one there too),
/// writing moves it back to the top level, so either program continues
/// from the other's mark and nothing is summarised twice.
constexpr const char* mark_key = "last_consolidated";

/// A mark as the original accepts it: an integer within the messages.
int64_t usable_mark(const json& v, size_t messages) {
  if (!v.is_number_integer())
    return -1;
  auto n = v.get<int64_t>();
  return n >= 0 && static_cast<size_t>(n) <= messages ? n : -1;
}

caf::expected<session_snapshot> load_impl(const std::string& dir,
                                          const std::string& key,
                                          bool conversation_only = false) {
  auto path = session_path(dir, key);
  if (!path)
    return path.error();
  session_snapshot out;
  out.key = key;
  int err = 0;
  // A turn's state: the first two lines, not a long transcript.
  auto text = read_file(*path, &err, conversation_only ? 2 : 0);
  if (!text) {
    if (err == ENOENT)
      return out;
    return text.error();
  }
  out.existed = true;
  if (conversation_only) {
    out.conversation = conversation_of_head(*text, out.has_conversation);
    return out;
  }
  auto parsed = parse_lines(*text);
  out.has_conversation = !parsed.provider_state_line.empty();
  out.messages = std::move(parsed.messages);
  out.skipped_lines = parsed.skipped;
  if (parsed.has_meta) {
    auto m = parsed.meta.find("metadata");
    auto meta = m != parsed.meta.end() && m->is_object() ? *m : json::object();
    auto n = out.messages.size();
    auto top = usable_mark(parsed.meta.value(mark_key, json()), n);
    auto inner = usable_mark(meta.value(mark_key, json()), n);
    if (top > 0 && top > inner)
      meta[mark_key] = top;
    if (!meta.empty() || (m != parsed.meta.end() && m->is_object()))
      out.metadata_json = meta.dump();
  }
  return out;
}

/// `state_line`: the provider_state line to write ("" = none); null: the
/// old file's is carried (carried_provider_state).
caf::error replace_impl(const std::string& dir, const std::string& key,
                        const std::string& metadata_json,
                        const std::vector<std::string>& messages,
                        uint64_t keep, const std::string* state_line);

/// An append to a file holding the original's provider_state: the file is
/// rewritten with every message kept and its metadata as it is (the
/// appended messages go into the state's pending messages).
caf::error append_by_rewrite(const std::string& dir, const std::string& key,
                             const std::vector<std::string>& messages,
                             const std::string* state_line) {
  auto snap = load_impl(dir, key);
  if (!snap)
    return snap.error();
  return replace_impl(dir, key, snap->metadata_json, messages,
                      snap->messages.size(), state_line);
}

caf::error append_impl(const std::string& dir, const std::string& key,
                       const std::vector<std::string>& messages,
                       const std::string* state_line) {
  auto path = session_path(dir, key);
  if (!path)
    return path.error();
  // A state to write: the line sits second, the file is rewritten.
  if (state_line && !state_line->empty())
    return append_by_rewrite(dir, key, messages, state_line);
  auto body = message_lines(*path, messages);
  if (!body)
    return body.error();
  // One handle for the head, the last byte, the append and the date.
  bool created = false;
  int fd = ::open(path->c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    if (auto e = make_dirs(dir))
      return e;
    fd = ::open(path->c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL
                                 | O_CLOEXEC, 0600);
    created = fd >= 0;
    if (fd < 0 && errno == EEXIST) // another writer created it just now
      fd = ::open(path->c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  }
  if (fd < 0)
    return sys_error("cannot open", *path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return sys_error("cannot stat", *path, e);
  }
  std::string prefix;
  std::string head;
  if (st.st_size == 0) {
    auto now = iso_now();
    prefix = metadata_line(key, now, now, json::object());
  } else {
    head = read_head(fd, st.st_size);
    if (holds_provider_state(head)) { // the original's state: carried along
      ::close(fd);
      return append_by_rewrite(dir, key, messages, state_line);
    }
    char last = '\n';
    if (head.size() == static_cast<size_t>(st.st_size) && !head.empty())
      last = head.back();
    else if (::pread(fd, &last, 1, st.st_size - 1) != 1) {
      int e = errno;
      ::close(fd);
      return sys_error("cannot read the end of", *path, e);
    }
    if (last != '\n')
      prefix = "\n";
  }
  int e = write_all(fd, prefix + *body);
  if (e == 0 && ::fsync(fd) != 0)
    e = errno;
  if (e == 0 && st.st_size > 0) // else the metadata line just written says now
    refresh_updated_at(fd, head);
  if (::close(fd) != 0 && e == 0)
    e = errno;
  if (e != 0)
    return sys_error("cannot append to", *path, e);
  if (created)
    return fsync_dir(dir);
  return caf::none;
}

// Keeps a corrupt file's bytes under another name before a rewrite.
caf::error keep_corrupt_copy(const std::string& path) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count();
  auto copy = path + ".corrupt-" + std::to_string(ms);
  if (::link(path.c_str(), copy.c_str()) != 0 && errno != EEXIST)
    return sys_error("cannot keep a copy of corrupt", path, errno);
  return caf::none;
}

caf::error replace_impl(const std::string& dir, const std::string& key,
                        const std::string& metadata_json,
                        const std::vector<std::string>& messages,
                        uint64_t keep, const std::string* state_line) {
  auto path = session_path(dir, key);
  if (!path)
    return path.error();
  auto meta = json::parse(metadata_json, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    return store_error("cannot write " + *path
                       + ": metadata is not a JSON object");
  auto body = message_lines(*path, messages);
  if (!body)
    return body.error();
  auto now = iso_now();
  auto created_at = now;
  std::string kept; // the old file's first `keep` messages
  int64_t consolidated = 0;
  std::string provider_state;
  int err = 0;
  if (auto old = read_file(*path, &err)) {
    auto parsed = parse_lines(*old);
    auto c = parsed.meta.find("created_at");
    if (parsed.has_meta && c != parsed.meta.end() && c->is_string())
      created_at = c->get<std::string>();
    auto lc = parsed.meta.find("last_consolidated");
    if (parsed.has_meta && lc != parsed.meta.end() && lc->is_number_integer())
      consolidated = lc->get<int64_t>();
    provider_state = state_line ? *state_line
                                : carried_provider_state(parsed, messages, keep);
    // The @handle belongs to the file (assigned by the session tools or
    // the original under the exclusive lock): a session writing metadata it
    // read before the handle existed keeps it.
    auto old_meta = parsed.has_meta ? parsed.meta.value("metadata", json())
                                    : json();
    if (old_meta.is_object() && old_meta.contains(session_handle_key)
        && !meta.contains(session_handle_key))
      meta[session_handle_key] = old_meta[session_handle_key];
    if (parsed.skipped > 0)
      if (auto e = keep_corrupt_copy(*path))
        return e;
    if (parsed.messages.size() < keep)
      return store_error("cannot rewrite " + *path + ": it holds "
                         + std::to_string(parsed.messages.size())
                         + " messages, fewer than the " + std::to_string(keep)
                         + " to keep");
    for (uint64_t i = 0; i < keep; ++i)
      kept += parsed.messages[i] + '\n';
  } else if (err != ENOENT) {
    return old.error();
  } else if (state_line) {
    provider_state = *state_line;
  } else if (keep > 0) {
    return store_error("cannot rewrite " + *path + ": it is gone, with the "
                       + std::to_string(keep) + " messages to keep");
  }
  // Our mark goes to the top level, where the original keeps it. Out of
  // range means nothing to the original (it resets to 0; it counts the
  // file's messages, the kept ones too): such a mark stays in metadata.
  auto total = keep + messages.size();
  if (auto ours = meta.find(mark_key); ours != meta.end()) {
    auto n = usable_mark(*ours, total);
    if (n >= 0) {
      consolidated = n;
      meta.erase(ours);
    }
  }
  if (consolidated < 0 || consolidated > static_cast<int64_t>(total))
    consolidated = 0;
  auto content = metadata_line(key, created_at, now, std::move(meta),
                               consolidated)
                 + provider_state + kept + *body;
  auto tmp = dir + "/." + session_file_name(key) + "." + random_hex(8)
             + ".tmp";
  auto flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  int fd = ::open(tmp.c_str(), flags, 0600);
  if (fd < 0 && errno == ENOENT) {
    if (auto e = make_dirs(dir))
      return e;
    fd = ::open(tmp.c_str(), flags, 0600);
  }
  if (fd < 0)
    return sys_error("cannot create", tmp, errno);
  const char* what = "cannot write";
  const std::string* target = &tmp;
  int e = write_all(fd, content);
  if (e == 0 && ::fsync(fd) != 0)
    e = errno;
  if (::close(fd) != 0 && e == 0)
    e = errno;
  if (e == 0 && ::rename(tmp.c_str(), path->c_str()) != 0) {
    e = errno;
    what = "cannot rename a temp file over";
    target = &*path;
  }
  if (e != 0) {
    ::unlink(tmp.c_str());
    return sys_error(what, *target, e);
  }
  return fsync_dir(dir);
}

caf::error exception_error(const char* op, const std::exception& ex) {
  return store_error(std::string{op} + " failed: " + ex.what());
}

/// Shared with our other workers, exclusive of the original nanobot. A
/// folder that does not exist yet has no lock file to take (nothing in it
/// to protect).
file_lock lock_dir(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return {};
  return file_lock{dir + "/" + session_files_lock, lock_mode::shared};
}

} // namespace

caf::expected<session_snapshot> load_session(const std::string& dir,
                                             const std::string& key,
                                             bool conversation_only) {
  try {
    auto lock = lock_dir(dir);
    return load_impl(dir, key, conversation_only);
  } catch (const std::exception& ex) {
    return exception_error("load_session", ex);
  }
}

/// The line a write's `conversation_set` asks for (null: carry the file's).
static std::optional<std::string> session_files_state_line(const conversation_state* set) {
  if (!set)
    return std::nullopt;
  return conversation_line(*set);
}

caf::error append_session(const std::string& dir, const std::string& key,
                          const std::vector<std::string>& messages,
                          const conversation_state* set_conversation) {
  try {
    auto lock = lock_dir(dir);
    auto line = session_files_state_line(set_conversation);
    return append_impl(dir, key, messages, line ? &*line : nullptr);
  } catch (const std::exception& ex) {
    return exception_error("append_session", ex);
  }
}

caf::error replace_session(const std::string& dir, const std::string& key,
                           const std::string& metadata_json,
                           const std::vector<std::string>& messages,
                           uint64_t keep,
                           const conversation_state* set_conversation) {
  try {
    auto lock = lock_dir(dir);
    auto line = session_files_state_line(set_conversation);
    return replace_impl(dir, key, metadata_json, messages, keep,
                        line ? &*line : nullptr);
  } catch (const std::exception& ex) {
    return exception_error("replace_session", ex);
  }
}

} // namespace nb
