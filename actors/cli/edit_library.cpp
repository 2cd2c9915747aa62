#include "actors/cli/edit_library.hpp"

#include "actors/common/shared_library.hpp"

namespace nb {

namespace {

constexpr library_spec libedit_spec{"libedit.so.2", "libedit2",
                                    "line editing in the terminal chat"};

using loaded_edit = loaded_functions<edit_library>;

loaded_edit open_edit() {
  loaded_edit out;
  void* handle = open_library(libedit_spec, out.error);
  if (handle == nullptr)
    return out;
  auto& f = out.functions;
  auto bind = [&](const char* name, auto*& fn) {
    return bind_function(handle, libedit_spec, name, fn, out.error);
  };
  bind("el_init", f.el_init) && bind("el_end", f.el_end)
    && bind("el_set", f.el_set) && bind("el_get", f.el_get)
    && bind("el_gets", f.el_gets) && bind("el_line", f.el_line)
    && bind("el_reset", f.el_reset) && bind("el_source", f.el_source)
    && bind("history_init", f.history_init)
    && bind("history_end", f.history_end) && bind("history", f.history);
  return out;
}

} // namespace

const edit_library* load_edit(std::string& error) {
  static const loaded_edit edit = open_edit();
  return edit.get(error);
}

} // namespace nb
