// The nanobot subcommands; each returns the process exit code.
#pragma once

#include "actors/app/options.hpp"

namespace nb {

int cmd_onboard(const options& opts);
int cmd_status(const options& opts);
int cmd_agent(const options& opts);
int cmd_gateway(const options& opts);

} // namespace nb
