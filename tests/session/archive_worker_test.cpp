// The archive worker against the real provider actor and a scripted
// OpenAI-compatible server on 127.0.0.1: it summarises one range, writes the
// history entry, ends, and leaves nothing behind in the provider it asked.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <caf/all.hpp>

#include "actors/provider/provider.hpp"
#include "actors/session/archive_worker.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/fake_llm.hpp"
#include "tests/support/scratch_dir.hpp"
#include "tests/support/system_fixture.hpp"

using namespace nb;
using namespace nb::test;
using namespace std::chrono_literals;

TEST_CASE("an archive worker ends without a trace in the provider it asked") {
  system_fixture fx;
  fake_llm llm;
  scratch_dir ws;
  settings s;
  s.agent.model = "fake-model";
  s.agent.workspace = ws.path;
  s.providers["custom"].api_base = llm.base_url();
  auto provider = spawn_provider(fx.sys, s, stats_actor{});
  std::vector<caf::actor_addr> ended;
  for (int i = 0; i < 3; ++i) {
    archive_job job;
    job.provider = provider;
    job.model = "fake-model";
    job.timeout = 30s;
    job.workspace = ws.path;
    job.session_key = "api:archive-" + std::to_string(i);
    job.formatted = "USER: the plan is to water the garden\nASSISTANT: noted";
    job.count = 2;
    auto worker = fx.sys.spawn<caf::detached>(archive_worker, std::move(job));
    ended.push_back(worker.address());
    caf::scoped_actor self{fx.sys};
    self->request(worker, 30s, caf::get_atom::value)
      .receive([](bool raw, const std::string&) { CHECK_FALSE(raw); },
               [&](caf::error& e) { FAIL(fx.sys.render(e)); });
  }
  std::ifstream history{ws.path + "/memory/history.jsonl"};
  std::stringstream text;
  text << history.rdbuf();
  CHECK(text.str().find("api:archive-2") != std::string::npos);
  // Once a worker has ended, only our own weak address may refer to it: a
  // monitor it left on the provider would hold its memory block for as
  // long as the provider lives (one per archived range, for months).
  for (auto& addr : ended) {
    auto* block = addr.get();
    REQUIRE(block != nullptr);
    auto deadline = std::chrono::steady_clock::now() + 30s;
    while ((block->strong_refs.load() > 0 || block->weak_refs.load() > 1)
           && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(5ms);
    CHECK(block->strong_refs.load() == 0);
    CHECK(block->weak_refs.load() == 1);
  }
  caf::anon_send_exit(provider, caf::exit_reason::user_shutdown);
}
