#include "actors/common/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace nb::log {

std::shared_ptr<spdlog::logger> get(const std::string& concern) {
  if (auto existing = spdlog::get(concern))
    return existing;
  std::shared_ptr<spdlog::logger> created;
  try {
    created = spdlog::stderr_color_mt(concern);
  } catch (const spdlog::spdlog_ex&) {
    // Another thread registered it between our lookup and our creation.
    return spdlog::get(concern);
  }
  created->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%-5l%$ [%n] %v");
  created->set_level(spdlog::get_level());
  return created;
}

void set_level(const std::string& level) {
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::apply_all([&](const std::shared_ptr<spdlog::logger>& lg) {
    lg->set_level(spdlog::level::from_str(level));
  });
}

} // namespace nb::log
