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
  invalid_arguments = 1,
  store_failed,
  provider_failed,
  config_invalid,
  turn_failed,
  inbox_full, ///< the inbox journal reached gateway.inbox.maxBytes
};

std::string to_string(errc x);

} // namespace nb

CAF_ERROR_CODE_ENUM(nb::errc, "nb")
