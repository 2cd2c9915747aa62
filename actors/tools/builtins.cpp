#include "actors/tools/builtin_tools.hpp"

namespace nb {

tool_registry make_builtin_registry(const settings& cfg) {
  tool_registry reg;
  add_read_file(reg);
  add_write_file(reg);
  add_edit_file(reg);
  add_list_dir(reg);
  add_cron(reg);
  if (cfg.tools.exec.enable)
    add_exec(reg);
  return reg;
}

} // namespace nb
