// The inbox journal reader: whatever bytes the file holds after a crash or
// a bad disk (torn frames, wrong CRCs, records that are not what they say).
// The input is read twice: as the raw file, and with each line framed as a
// record, so the JSON records are reached past the CRC check. Whatever is
// read must compact to a journal that reads back the same.
#include <string_view>

#include "actors/inbox/journal_frames.hpp"
#include "actors/inbox/journal_records.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

void read_and_compact(std::string_view bytes) {
  auto img = nb::inbox::read_journal(bytes, 64);
  auto again = nb::inbox::read_journal(nb::inbox::compacted(img), 64);
  // Checked in release builds too (run.sh builds with NDEBUG).
  if (again.live.size() != img.live.size()
      || again.seen.size() != img.seen.size()
      || again.tail != nb::inbox::tail_kind::clean)
    __builtin_trap();
  for (auto& e : img.live)
    (void) nb::inbox::seq_of(e.id);
}

} // namespace

NB_FUZZ_ENTRY(inbox_journal) {
  auto input = nb::fuzz::text(data, size);
  read_and_compact(input);
  std::string framed;
  size_t start = 0;
  while (start <= input.size()) {
    auto end = input.find('\n', start);
    if (end == std::string::npos)
      end = input.size();
    framed += nb::inbox::frame(std::string_view{input}.substr(start, end - start));
    start = end + 1;
  }
  read_and_compact(framed);
  return 0;
}
