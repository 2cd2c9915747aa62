#include "actors/app/commands.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

namespace nb {

std::string node_executable_path() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ((ec ? std::filesystem::path{"."} : self.parent_path())
          / "nanobot-node")
    .string();
}

int exec_node_executable(int argc, char** argv) {
  auto path = node_executable_path();
  std::vector<char*> args{path.data()};
  args.insert(args.end(), argv + 1, argv + argc);
  args.push_back(nullptr);
  ::execv(path.c_str(), args.data());
  std::cerr << "nanobot node: cannot run " << path << ": "
            << std::strerror(errno)
            << " (it is built and installed beside nanobot: run "
               "deploy/build.sh, or install both)\n";
  return 2;
}

} // namespace nb
