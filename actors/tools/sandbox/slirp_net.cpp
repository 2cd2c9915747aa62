#include "actors/tools/sandbox/slirp_net.hpp"
#include "actors/tools/sandbox/executables.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sched.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actors/tools/child_spawn.hpp"

namespace nb {

namespace {

using steady = std::chrono::steady_clock;

constexpr auto setup_limit = std::chrono::seconds(10);

void close_fd(int& fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

// Reads from `fd` until `done(text)` or EOF or the deadline.
template <class Done>
std::string read_until(int fd, steady::time_point deadline, Done done) {
  std::string text;
  char buf[512];
  while (!done(text)) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - steady::now())
                  .count();
    if (left <= 0)
      break;
    pollfd p{fd, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(left));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      break;
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

// The pid in bwrap's info JSON: {"child-pid": 1234, ...}.
pid_t child_pid_of(const std::string& json) {
  auto at = json.find("\"child-pid\"");
  if (at == std::string::npos)
    return -1;
  at = json.find(':', at);
  if (at == std::string::npos)
    return -1;
  char* end = nullptr;
  long pid = std::strtol(json.c_str() + at + 1, &end, 10);
  return pid > 0 && end && *end != '\0' ? static_cast<pid_t>(pid) : -1;
}

// One RTM_NEWROUTE "unreachable <range>" request, built before fork.
struct route_msg {
  nlmsghdr nh;
  rtmsg rt;
  char attrs[RTA_SPACE(4)];
};

bool build_route(const std::string& cidr, route_msg& m, uint32_t seq) {
  auto slash = cidr.find('/');
  in_addr addr{};
  if (slash == std::string::npos
      || ::inet_pton(AF_INET, cidr.substr(0, slash).c_str(), &addr) != 1)
    return false;
  std::memset(&m, 0, sizeof m);
  m.nh.nlmsg_len = NLMSG_LENGTH(sizeof(rtmsg)) + RTA_SPACE(4);
  m.nh.nlmsg_type = RTM_NEWROUTE;
  m.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
  m.nh.nlmsg_seq = seq;
  m.rt.rtm_family = AF_INET;
  m.rt.rtm_dst_len = static_cast<unsigned char>(std::stoi(cidr.substr(slash + 1)));
  m.rt.rtm_table = RT_TABLE_MAIN;
  m.rt.rtm_protocol = RTPROT_STATIC;
  m.rt.rtm_scope = RT_SCOPE_NOWHERE;
  m.rt.rtm_type = RTN_UNREACHABLE;
  auto* rta = reinterpret_cast<rtattr*>(m.attrs);
  rta->rta_type = RTA_DST;
  rta->rta_len = RTA_LENGTH(4);
  std::memcpy(RTA_DATA(rta), &addr, 4);
  return true;
}

// In the namespace: waits until its loopback is up, woken by the kernel's
// link notices (RTMGRP_LINK) rather than a sleep loop; false after `limit`.
// Async-signal-safe calls only (it runs in a forked child).
bool wait_for_loopback(std::chrono::milliseconds limit) {
  int probe = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int notices = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  sockaddr_nl groups{};
  groups.nl_family = AF_NETLINK;
  groups.nl_groups = RTMGRP_LINK;
  if (probe < 0 || notices < 0
      || ::bind(notices, reinterpret_cast<sockaddr*>(&groups), sizeof groups)
           != 0)
    return false;
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, "lo", 3);
  // Subscribed before the first look, so a change in between still wakes us.
  auto deadline = steady::now() + limit;
  while (true) {
    if (::ioctl(probe, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP))
      return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - steady::now())
                  .count();
    if (left <= 0)
      return false;
    pollfd p{notices, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) > 0) {
      char drain[4096];
      while (::recv(notices, drain, sizeof drain, MSG_DONTWAIT) > 0) {
      }
    }
  }
}

// In a forked child (single-threaded, so it may join a user namespace):
// enters the sandbox's user namespace when the gateway is not root (root
// already holds CAP_NET_ADMIN over every namespace), then its network
// namespace, and adds the routes over rtnetlink. No exec: capabilities
// gained by joining the namespace would not survive one. Only
// async-signal-safe calls after fork.
std::string block_ranges(pid_t pid) {
  std::vector<route_msg> msgs(sandbox_blocked_ranges().size());
  for (size_t i = 0; i < msgs.size(); ++i)
    if (!build_route(sandbox_blocked_ranges()[i], msgs[i],
                     static_cast<uint32_t>(i + 1)))
      return "bad range " + sandbox_blocked_ranges()[i];
  auto ns = "/proc/" + std::to_string(pid) + "/ns/";
  int user_fd = ::geteuid() == 0
                  ? -1
                  : ::open((ns + "user").c_str(), O_RDONLY | O_CLOEXEC);
  int net_fd = ::open((ns + "net").c_str(), O_RDONLY | O_CLOEXEC);
  if (net_fd < 0 || (::geteuid() != 0 && user_fd < 0)) {
    if (user_fd >= 0)
      ::close(user_fd);
    if (net_fd >= 0)
      ::close(net_fd);
    return "the sandbox's namespaces are gone (" + ns + ": "
           + std::strerror(errno) + ")";
  }
  pid_t child = ::fork();
  if (child == 0) {
    if (user_fd >= 0 && ::setns(user_fd, CLONE_NEWUSER) != 0)
      ::_exit(10);
    if (::setns(net_fd, CLONE_NEWNET) != 0)
      ::_exit(11);
    // bwrap brings up the namespace's loopback right after it starts; the
    // routes (and slirp4netns after them) wait for that, or the two would
    // race on the same netlink work. The wait wakes on the link's own
    // netlink notice (it polled every millisecond before).
    if (!wait_for_loopback(std::chrono::seconds(5)))
      ::_exit(16);
    int sock = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (sock < 0)
      ::_exit(12);
    for (auto& m : msgs) {
      if (::send(sock, &m, m.nh.nlmsg_len, 0) < 0)
        ::_exit(13);
      char reply[512];
      auto n = ::recv(sock, reply, sizeof reply, 0);
      auto* nh = reinterpret_cast<nlmsghdr*>(reply);
      if (n < static_cast<ssize_t>(sizeof(nlmsghdr)) || nh->nlmsg_type != NLMSG_ERROR)
        ::_exit(14);
      auto* err = static_cast<nlmsgerr*>(NLMSG_DATA(nh));
      if (err->error != 0)
        ::_exit(15);
    }
    ::_exit(0);
  }
  if (user_fd >= 0)
    ::close(user_fd);
  ::close(net_fd);
  if (child < 0)
    return std::string{"fork: "} + std::strerror(errno);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "step " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1)
           + " failed (10 user namespace, 11 network namespace, 12-15 "
             "rtnetlink, 16 no loopback)";
  return {};
}

} // namespace

const std::vector<std::string>& sandbox_blocked_ranges() {
  static const std::vector<std::string> ranges{
    "0.0.0.0/8",      "10.0.0.0/8",     "100.64.0.0/10", "169.254.0.0/16",
    "172.16.0.0/12",  "192.0.0.0/24",   "192.168.0.0/16", "198.18.0.0/15",
    "224.0.0.0/4",    "240.0.0.0/4"};
  return ranges;
}

bool slirp_network::available(std::string& slirp, std::string& why_not) {
  slirp = first_executable({"/usr/bin/slirp4netns",
                            "/usr/local/bin/slirp4netns"});
  if (slirp.empty())
    why_not = "slirp4netns is not installed (apt-get install slirp4netns)";
  return why_not.empty();
}

slirp_network::slirp_network(std::string slirp4netns)
  : slirp_(std::move(slirp4netns)) {
  ok_ = ::pipe2(info_, O_CLOEXEC) == 0 && ::pipe2(block_, O_CLOEXEC) == 0
        && ::pipe2(resolv_, O_CLOEXEC) == 0 && ::pipe2(exit_, O_CLOEXEC) == 0;
  if (!ok_)
    return;
  // slirp4netns answers DNS on 10.0.2.3 (forwarding to the host's
  // resolver); the host's resolv.conf may name a loopback resolver the
  // namespace cannot reach.
  static const char resolv[] = "nameserver 10.0.2.3\n";
  ok_ = ::write(resolv_[1], resolv, sizeof resolv - 1)
        == static_cast<ssize_t>(sizeof resolv - 1);
  close_fd(resolv_[1]);
}

slirp_network::~slirp_network() {
  close_fd(exit_[1]); // slirp4netns quits on EOF (if the gateway dies)
  // The sandbox is gone by now, so its network has nothing left to carry:
  // killed, and reaped off the tool result's path (its exit waits for the
  // kernel to remove its tap device: 15-50 ms here, every call).
  if (slirp_pid_ > 0) {
    ::kill(slirp_pid_, SIGKILL);
    reap_in_background(slirp_pid_);
  }
  for (int* p : {info_, block_, resolv_, exit_}) {
    close_fd(p[0]);
    close_fd(p[1]);
  }
}

std::vector<int> slirp_network::bwrap_fds() const {
  return {info_[1], block_[0], resolv_[0]};
}

std::string slirp_network::attach(pid_t) {
  // Our copies of bwrap's ends go, so EOF means bwrap is gone.
  close_fd(info_[1]);
  close_fd(block_[0]);
  close_fd(resolv_[0]);
  auto deadline = steady::now() + setup_limit;
  auto info = read_until(info_[0], deadline, [](const std::string& t) {
    return t.find('}') != std::string::npos;
  });
  auto pid = child_pid_of(info);
  if (pid <= 0)
    return "the sandbox did not start (no pid from bwrap)";
  // The ranges go inside the namespace, where the command (no
  // capabilities) cannot take them out again.
  if (auto bad = block_ranges(pid); !bad.empty())
    return "could not block private ranges in the sandbox: " + bad;
  auto ns_pid = std::to_string(pid);
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0)
    return std::string{"pipe: "} + std::strerror(errno);
  child_spec slirp;
  slirp.program = slirp_;
  slirp.argv = {slirp_,          "--configure",  "--mtu=65520",
                "--disable-host-loopback",       "--ready-fd=3",
                "--exit-fd=4",   ns_pid,         "tap0"};
  // As root, bwrap moves the sandbox into a second, nested user namespace
  // (to run the command as an unprivileged uid); slirp4netns would join
  // that one and lose the right to enter the network namespace. Root needs
  // no user namespace: pointing it at its own makes that step a no-op.
  if (::geteuid() == 0)
    slirp.argv.insert(slirp.argv.begin() + 1, "--userns-path=/proc/self/ns/user");
  slirp.env = {"PATH=/usr/bin:/bin"};
  slirp.extra_fds = {ready[1], exit_[0]};
  int said[2] = {-1, -1};
  if (::pipe2(said, O_CLOEXEC | O_NONBLOCK) == 0)
    slirp.stderr_fd = said[1];
  std::string error;
  slirp_pid_ = spawn_child(slirp, error);
  close_fd(said[1]);
  ::close(ready[1]);
  close_fd(exit_[0]);
  if (slirp_pid_ < 0) {
    ::close(ready[0]);
    close_fd(said[0]);
    return "slirp4netns: " + error;
  }
  auto ok = read_until(ready[0], deadline,
                       [](const std::string& t) { return !t.empty(); });
  ::close(ready[0]);
  std::string why;
  if (ok.empty() && said[0] >= 0) {
    char buf[1024];
    auto n = ::read(said[0], buf, sizeof buf);
    if (n > 0)
      why = ": " + std::string(buf, static_cast<size_t>(n));
  }
  close_fd(said[0]);
  if (ok.empty())
    return "slirp4netns did not configure the sandbox's network" + why;
  // Everything is in place: the command may start.
  char go = 1;
  if (::write(block_[1], &go, 1) != 1)
    return "the sandbox went away before its command started";
  close_fd(block_[1]);
  return {};
}

} // namespace nb
