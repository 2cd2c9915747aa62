#include "actors/common/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace nb::log {

std::shared_ptr<spdlog::logger> get(const std::string& concern) {
  if (auto existing = spdlog::get(concern))
    return existing;
  auto created = spdlog::stderr_color_mt(concern);
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
