// The inbox's file worker: a detached actor that does the journal's blocking
// writes and fsyncs, one request at a time, in order. The journal file (its
// descriptor and lock) belongs to the inbox, which lends it to one worker at
// a time: a worker idle for a while is retired and its thread ends; the next
// write starts a new one on the same open file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace nb::inbox {

using open_atom = caf::atom_constant<caf::atom("ibopen")>;
using write_atom = caf::atom_constant<caf::atom("ibwrite")>;
using compact_atom = caf::atom_constant<caf::atom("ibcompact")>;
using keep_atom = caf::atom_constant<caf::atom("ibkeep")>;
using retire_atom = caf::atom_constant<caf::atom("ibretire")>;

class journal_file;

/// open: the journal's valid bytes and its path, then the paths and bytes
/// of the journals it adopted (left by gateways that ran beside one on
/// this home). write (bytes, sync): the file size after it. compact
/// (bytes): replaces the file and then removes the adopted journals (their
/// entries are in the bytes); its new size.
/// keep (file name, line): appends a line to a side file in the inbox dir.
/// retire: ends the worker once the requests before it are answered.
using worker_actor = caf::typed_actor<
  caf::replies_to<open_atom>::with<std::string, std::string,
                                   std::vector<std::string>,
                                   std::vector<std::string>>,
  caf::replies_to<write_atom, std::string, bool>::with<int64_t>,
  caf::replies_to<compact_atom, std::string>::with<int64_t>,
  caf::replies_to<keep_atom, std::string, std::string>::with<caf::ok_atom>,
  caf::reacts_to<retire_atom>>;

/// Spawns a worker for the journal under `dir` (detached: it blocks), on
/// `file`: not yet open for the first worker (it answers open), open for
/// the ones after it.
worker_actor spawn_worker(caf::actor_system& sys, std::string dir,
                          std::shared_ptr<journal_file> file);

} // namespace nb::inbox
