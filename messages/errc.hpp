// Failures that cross actor boundaries as caf::error values.
#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>

namespace nb {

/// Zero is reserved for "no error".
enum class errc : uint8_t {
  unknown_tool = 1,
  invalid_arguments,
  outside_workspace,
  store_failed,
  provider_unconfigured,
  provider_failed,
  config_invalid,
  turn_failed,
  timed_out,
  shutting_down,
  inbox_full, ///< the inbox journal reached gateway.inbox.maxBytes
};

std::string to_string(errc x);

} // namespace nb

CAF_ERROR_CODE_ENUM(nb::errc, "nb")
