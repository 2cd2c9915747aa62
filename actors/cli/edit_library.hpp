// The libedit functions the terminal chat's line editor calls, from
// libedit.so.2 opened when `nanobot agent` first edits a line (see
// actors/common/shared_library): a gateway never maps libedit and the
// three libraries it pulls in (libtinfo, libbsd, libmd), which cost every
// start their relocations (~1.3 M instructions, measured with callgrind).
#pragma once

#include <string>

#include <histedit.h>

namespace nb {

struct edit_library {
  decltype(&::el_init) el_init;
  decltype(&::el_end) el_end;
  decltype(&::el_set) el_set;
  decltype(&::el_get) el_get;
  decltype(&::el_gets) el_gets;
  decltype(&::el_line) el_line;
  decltype(&::el_reset) el_reset;
  decltype(&::el_source) el_source;
  decltype(&::history_init) history_init;
  decltype(&::history_end) history_end;
  decltype(&::history) history;
};

/// libedit, opened once per process on the first call; null with `error`
/// naming the package when it is missing. Opens a file: not from a
/// scheduler thread (the terminal's own thread calls it).
const edit_library* load_edit(std::string& error);

} // namespace nb
