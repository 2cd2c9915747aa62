#include "actors/tools/mcp_stdio.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/tools/child_spawn.hpp"

#include "actors/tools/mcp_frames.hpp"

namespace nb {

namespace {

using nlohmann::json;
using steady = std::chrono::steady_clock;

constexpr size_t max_line = 64u * 1024 * 1024;

std::string find_program(const std::string& cmd, const std::string& path) {
  if (cmd.find('/') != std::string::npos)
    return cmd;
  size_t i = 0;
  while (i <= path.size()) {
    auto j = path.find(':', i);
    if (j == std::string::npos)
      j = path.size();
    auto dir = path.substr(i, j - i);
    auto full = (dir.empty() ? "." : dir) + "/" + cmd;
    if (::access(full.c_str(), X_OK) == 0)
      return full;
    i = j + 1;
  }
  return {};
}

} // namespace

mcp_stdio::~mcp_stdio() {
  stop();
}

std::string mcp_stdio::start(const mcp_server_settings& cfg) {
  stop();
  const char* p = std::getenv("PATH");
  std::string path = p ? p : "/usr/local/bin:/usr/bin:/bin";
  // A minimal environment, like exec: the gateway's keys stay here. The
  // server gets what its config names.
  std::vector<std::string> env;
  for (auto key : {"HOME", "LANG", "TMPDIR", "USER"})
    if (const char* v = std::getenv(key))
      env.push_back(std::string{key} + "=" + v);
  if (cfg.env.count("PATH"))
    path = cfg.env.at("PATH");
  env.push_back("PATH=" + path);
  for (auto& [k, v] : cfg.env)
    if (k != "PATH")
      env.push_back(k + "=" + v);
  auto program = find_program(cfg.command, path);
  if (program.empty())
    return "command not found: " + cfg.command;
  // The server's stdin is a socket so our writes can use MSG_NOSIGNAL: a
  // server that died must not take the gateway down with SIGPIPE.
  int to_child[2], from_child[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, to_child) != 0)
    return std::strerror(errno);
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    return std::strerror(errno);
  }
  child_spec spec;
  spec.program = program;
  spec.argv.push_back(cfg.command);
  spec.argv.insert(spec.argv.end(), cfg.args.begin(), cfg.args.end());
  spec.env = env;
  spec.cwd = cfg.cwd;
  spec.stdin_fd = to_child[0];
  spec.stdout_fd = from_child[1];
  spec.stderr_fd = -1; // its logs are not ours to keep
  spec.limits.no_core = true;
  std::string error;
  pid_ = spawn_child(spec, error);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (pid_ < 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    return error;
  }
  in_ = to_child[1];
  out_ = from_child[0];
  ::fcntl(out_, F_SETFL, ::fcntl(out_, F_GETFL) | O_NONBLOCK);
  buf_.clear();
  return {};
}

bool mcp_stdio::send_line(const std::string& line) {
  if (in_ < 0)
    return false;
  auto data = line + "\n";
  size_t put = 0;
  while (put < data.size()) {
    auto n = ::send(in_, data.data() + put, data.size() - put, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return false;
    put += static_cast<size_t>(n);
  }
  return true;
}

std::string mcp_stdio::read_line(steady::time_point deadline, bool& eof) {
  eof = false;
  char chunk[65536];
  while (true) {
    auto nl = buf_.find('\n');
    if (nl != std::string::npos) {
      auto line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return line;
    }
    if (out_ < 0) {
      eof = true;
      return {};
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - steady::now())
                  .count();
    if (left <= 0)
      return {};
    pollfd pfd{out_, POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 200)));
    if (r < 0 && errno != EINTR) {
      eof = true;
      return {};
    }
    if (r <= 0)
      continue;
    auto n = ::read(out_, chunk, sizeof chunk);
    if (n > 0) {
      buf_.append(chunk, static_cast<size_t>(n));
      if (buf_.size() > max_line) { // a runaway server: give up on it
        eof = true;
        return {};
      }
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      ::close(out_);
      out_ = -1;
    }
  }
}

std::string mcp_stdio::call(const std::string& method, const json& params,
                            steady::time_point deadline, json& result) {
  auto id = next_id_++;
  json req = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null())
    req["params"] = params;
  if (!send_line(req.dump()))
    return "the MCP server is not running";
  while (true) {
    bool eof = false;
    auto line = read_line(deadline, eof);
    if (eof)
      return "the MCP server exited";
    if (line.empty()) {
      if (steady::now() >= deadline)
        return "timed out waiting for the MCP server";
      continue;
    }
    auto msg = json::parse(line, nullptr, false);
    switch (classify_mcp_message(msg, id)) {
      case mcp_message_kind::server_request:
        send_line(answer_server_request(msg).dump());
        continue;
      case mcp_message_kind::other:
        continue; // stray output, notifications, replies to abandoned calls
      case mcp_message_kind::reply:
        return read_mcp_reply(msg, result);
    }
  }
}

bool mcp_stdio::notify(const std::string& method, const json& params) {
  json msg = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null())
    msg["params"] = params;
  return send_line(msg.dump());
}

bool mcp_stdio::alive() {
  if (pid_ < 0 || out_ < 0)
    return false;
  int status;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void mcp_stdio::stop() {
  if (in_ >= 0)
    ::close(in_);
  if (out_ >= 0)
    ::close(out_);
  in_ = out_ = -1;
  if (pid_ > 0) {
    ::killpg(pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  buf_.clear();
}

} // namespace nb
