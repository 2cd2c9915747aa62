// doctest's main, shared by every test binary. Like the gateway
// (actors/app/shutdown_signals.cpp), a test process ignores SIGPIPE: the
// code under test writes to pipes whose reader may be gone (a sandbox torn
// down while its setup data is written) and handles EPIPE, which the
// default action would turn into the test binary's death. Children get
// the default back (child_spawn.cpp), as the gateway's do.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <csignal>

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  return doctest::Context(argc, argv).run();
}
