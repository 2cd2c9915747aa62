#include "actors/tools/builtin_tools.hpp"

#include "actors/browser/chromium.hpp"

namespace nb {

tool_registry make_builtin_registry(const settings& cfg) {
  tool_registry reg;
  add_read_file(reg);
  add_write_file(reg);
  add_edit_file(reg);
  add_apply_patch(reg);
  add_list_dir(reg);
  add_session_tools(reg);
  add_session_messages(reg);
  add_session_send(reg);
  if (cfg.tools.my_enable)
    add_my(reg);
  add_cron(reg);
  add_grep(reg);
  add_find_files(reg);
  add_message(reg);
  add_memory_tools(reg);
  if (cfg.tools.web.enable) {
    add_web_fetch(reg);
    add_web_search(reg);
  }
  if (cfg.tools.exec.enable) {
    add_exec(reg);
    add_exec_sessions(reg);
  }
  if (cfg.tools.cli_apps.enable)
    add_run_cli_app(reg, cfg);
  if (browser_enabled(cfg.tools.browser))
    add_browser(reg, cfg.tools.browser);
  return reg;
}

} // namespace nb
