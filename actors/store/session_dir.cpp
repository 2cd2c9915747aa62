// Where session files live: their names and the per-workspace directory.
#include "actors/store/session_files.hpp"

#include <cctype>
#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

#include <caf/message.hpp>

#include "actors/store/posix_io.hpp"

namespace nb {

namespace {

using namespace store_io;

std::string base64url(const std::string& in) {
  static constexpr char abc[]
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t k) { return static_cast<unsigned char>(in[k]); };
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
    out += abc[v & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t v = byte(i) << 16;
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
  }
  return out;
}

bool is_workspace_id(const std::string& s) {
  if (s.size() != 32)
    return false;
  for (unsigned char c : s)
    if (!std::isxdigit(c))
      return false;
  return true;
}

std::string trimmed(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Publishes a fresh id with link(), which fails when another process got
// there first; then everyone reads the winner's id.
caf::expected<std::string> create_workspace_id(const std::string& dir,
                                               const std::string& path) {
  if (auto err = make_dirs(dir))
    return err;
  auto id = random_hex(16);
  auto tmp = dir + "/.workspace-id." + random_hex(8) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return sys_error("cannot create", tmp, errno);
  int err = write_all(fd, id + "\n");
  if (err == 0 && ::fsync(fd) != 0)
    err = errno;
  ::close(fd);
  if (err == 0 && ::link(tmp.c_str(), path.c_str()) != 0)
    err = errno;
  ::unlink(tmp.c_str());
  if (err == EEXIST) {
    auto text = read_file(path);
    if (!text)
      return text.error();
    id = trimmed(*text);
    if (!is_workspace_id(id))
      return store_error(path + " holds no 32-hex workspace id");
    return id;
  }
  if (err != 0)
    return sys_error("cannot write", path, err);
  if (auto e = fsync_dir(dir))
    return e;
  return id;
}

} // namespace

std::string session_file_name(const std::string& key) {
  return base64url(key) + ".jsonl";
}

caf::expected<std::string> resolve_sessions_dir(const std::string& config_dir,
                                                const std::string& workspace) {
  if (config_dir.empty() || workspace.empty())
    return store_error("resolve_sessions_dir: empty config dir or workspace");
  auto id_dir = workspace + "/.nanobot";
  auto id_path = id_dir + "/workspace-id";
  int read_errno = 0;
  auto text = read_file(id_path, &read_errno);
  std::string id;
  if (text) {
    id = trimmed(*text);
    if (!is_workspace_id(id))
      return store_error(id_path + " holds no 32-hex workspace id");
  } else if (read_errno == ENOENT) {
    auto created = create_workspace_id(id_dir, id_path);
    if (!created)
      return created.error();
    id = std::move(*created);
  } else {
    return text.error();
  }
  auto dir = config_dir + "/sessions/" + id;
  if (auto err = make_dirs(dir))
    return err;
  return dir;
}

std::string store_error_text(const caf::error& err) {
  if (!err)
    return {};
  const auto& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0))
    return ctx.get_as<std::string>(0);
  return caf::to_string(err);
}

} // namespace nb
