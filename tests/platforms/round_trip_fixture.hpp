// The round-trip tests' gateway: a whole runtime with background services
// (channels on), a fresh home and the scripted LLM, plus small waits.
#pragma once

#include <memory>
#include <thread>

#include "actors/supervisor/runtime.hpp"
#include "tests/integration/child_process.hpp"
#include "tests/integration/harness.hpp"
#include "tests/support/eventually.hpp"
#include "tests/platforms/fake_dingtalk.hpp"
#include "tests/platforms/fake_discord.hpp"
#include "tests/platforms/fake_feishu.hpp"
#include "tests/platforms/fake_matrix.hpp"
#include "tests/platforms/fake_mochat.hpp"
#include "tests/platforms/fake_napcat.hpp"
#include "tests/platforms/fake_qq.hpp"
#include "tests/platforms/fake_slack.hpp"
#include "tests/platforms/fake_telegram.hpp"
#include "tests/platforms/fake_whatsapp_bridge.hpp"
#include "tests/platforms/fake_whatsapp_cloud.hpp"

namespace nb::test {

using namespace std::chrono_literals;

/// Declare the platform's fake before the gateway: the gateway then stops
/// (its adapter closes the connection) while the platform is still up.
/// The other way round the fake goes first and its adapter reconnects to it,
/// with back-offs, while it is being torn down: seconds per test.
struct gateway {
  temp_home home;
  fake_llm llm;
  settings cfg;
  std::unique_ptr<runtime> rt;

  gateway() { cfg = settings_for(home, llm); }

  void enable(const std::string& name, nlohmann::json raw) {
    raw["enabled"] = true;
    cfg.channels[name].enabled = true;
    cfg.channels[name].raw_json = raw.dump();
  }

  void start() { rt = std::make_unique<runtime>(cfg, true); }

  ~gateway() {
    if (rt)
      rt->shutdown(std::chrono::seconds(5));
  }
};

inline std::string joined_text(const std::vector<nlohmann::json>& sent,
                               const char* field) {
  std::string out;
  for (auto& s : sent)
    out += s.value(field, "") + "\n";
  return out;
}

} // namespace nb::test

