// The Matrix inbound side: /sync long polling on its own thread.
#pragma once

#include <memory>
#include <string>

#include "actors/channels/kit/adapter.hpp"
#include "actors/channels/matrix/matrix_config.hpp"

namespace nb::matrix {

/// Logs in when only a password is given, learns its user id
/// (account/whoami), then long-polls /sync with the since token. The token
/// is kept in `state_file` and moves only after a batch was handed on, so
/// a restart (or a crash) continues where the last handed-on batch ended;
/// the very first start skips the rooms' history. Invites are accepted
/// when autoJoin is on.
std::unique_ptr<chan::inbound_loop>
start_poller(matrix_config cfg, std::string state_file,
             chan::adapter_front_actor front);

} // namespace nb::matrix
