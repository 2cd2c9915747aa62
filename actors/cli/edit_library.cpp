#include "actors/cli/edit_library.hpp"

#include "actors/common/shared_library.hpp"

namespace nb {

namespace {

constexpr library_spec libedit_spec{"libedit.so.2", "libedit2",
                                    "line editing in the terminal chat"};

} // namespace

const edit_library* load_edit(std::string& error) {
  static const auto edit = open_functions<edit_library>(
    libedit_spec, [](edit_library& f, auto bind) -> std::string {
      bind("el_init", f.el_init) && bind("el_end", f.el_end)
        && bind("el_set", f.el_set) && bind("el_get", f.el_get)
        && bind("el_gets", f.el_gets) && bind("el_line", f.el_line)
        && bind("el_reset", f.el_reset) && bind("el_source", f.el_source)
        && bind("history_init", f.history_init)
        && bind("history_end", f.history_end) && bind("history", f.history);
      return {};
    });
  return edit.get(error);
}

} // namespace nb
