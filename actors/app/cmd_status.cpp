#include <filesystem>
#include <iostream>

#include "actors/app/commands.hpp"
#include "actors/app/load_config.hpp"
#include "actors/browser/chromium.hpp"
#include "actors/provider/provider_registry.hpp"
#include "actors/tools/sandbox/sandbox_probe.hpp"

namespace nb {

int cmd_status(const options& opts) {
  std::vector<std::string> notices;
  auto cfg = load_config_or_report(opts, &notices);
  if (!cfg)
    return 2;
  namespace fs = std::filesystem;
  std::error_code ec;
  auto mark = [](bool ok) { return ok ? "✓" : "✗"; };
  bool have_config = fs::exists(cfg->config_path, ec);
  auto ws = cfg->workspace_path();
  bool have_ws = fs::is_directory(ws, ec);
  auto choice = choose_provider(*cfg);
  std::cout << "nanobot-cpp " NB_VERSION " status\n\n"
            << "Config:    " << cfg->config_path << " " << mark(have_config)
            << (have_config ? "" : " (missing: built-in defaults; run `nanobot onboard`)")
            << "\nWorkspace: " << ws << " " << mark(have_ws)
            << (have_ws ? "" : " (missing: run `nanobot onboard`)")
            << "\nModel:     " << cfg->agent.model
            << "\nProvider:  ";
  if (choice.ready())
    std::cout << choice.name << " at " << choice.api_base << " "
              << mark(true) << " ("
              << (choice.api_key.empty() ? "no API key"
                                         : "API key from " + choice.key_source)
              << ", " << wire_api_name(choice.api) << " API, sends model \""
              << choice.model << "\")";
  else
    std::cout << mark(false) << " not ready: " << choice.problem;
  if (!choice.reason.empty())
    std::cout << "\n           chosen by " << choice.reason;
  std::cout << "\nAPI:       http://" << cfg->api.host << ":" << cfg->api.port
            << "/v1" << (cfg->api.api_key.empty() ? " (no key)" : " (key required)")
            << "\nGateway:   http://" << cfg->gateway.host << ":" << cfg->gateway.port
            << " (/health, /stats, /metrics)";
  auto& browser = cfg->tools.browser;
  auto chromium = find_executable(browser.executable);
  std::cout << "\nBrowser:   ";
  if (!chromium.empty())
    std::cout << "Chromium at " << chromium << " " << mark(true)
              << (browser_enabled(browser) ? " (browser tool on)"
                                           : " (browser tool off: "
                                             "tools.browser.enable)");
  else
    std::cout << mark(false) << " Chromium not found (\"" << browser.executable
              << "\"; apt-get install chromium)"
              << (browser_enabled(browser) ? ": the browser tool will fail"
                                           : ": no browser tool");
  std::cout << "\nSandbox:   " << describe_sandbox(*cfg, sandbox_status_for())
            << "\n";
  // The original's keys in this config that this build reads but does not
  // act on (README: "Accepted, not used").
  bool first = true;
  for (auto& n : notices)
    if (n.find(": accepted, not used") != std::string::npos) {
      std::cout << (first ? "\nAccepted, not used:\n" : "") << "  " << n
                << "\n";
      first = false;
    }
  return 0;
}

} // namespace nb
