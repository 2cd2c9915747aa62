// The inbox's file worker: a detached actor that owns the journal file and
// does the blocking writes and fsyncs, one request at a time, in order.
#pragma once

#include <cstdint>
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

/// open: the journal's valid bytes and its path, then the paths and bytes
/// of the journals it adopted (left by gateways that ran beside one on
/// this home). write (bytes, sync): the file size after it. compact
/// (bytes): replaces the file and then removes the adopted journals (their
/// entries are in the bytes); its new size.
/// keep (file name, line): appends a line to a side file in the inbox dir.
using worker_actor = caf::typed_actor<
  caf::replies_to<open_atom>::with<std::string, std::string,
                                   std::vector<std::string>,
                                   std::vector<std::string>>,
  caf::replies_to<write_atom, std::string, bool>::with<int64_t>,
  caf::replies_to<compact_atom, std::string>::with<int64_t>,
  caf::replies_to<keep_atom, std::string, std::string>::with<caf::ok_atom>>;

/// Spawns the worker for the journal under `dir` (detached: it blocks).
worker_actor spawn_worker(caf::actor_system& sys, std::string dir);

} // namespace nb::inbox
