#include "actors/common/shared_library.hpp"

#include <dlfcn.h>

namespace nb {

namespace {

std::string dl_reason() {
  const char* why = ::dlerror();
  return why != nullptr ? why : "unknown reason";
}

} // namespace

void* open_library(const library_spec& spec, std::string& error) {
  // RTLD_LOCAL: its symbols stay out of the global namespace, so nothing
  // loaded later binds to them by accident.
  void* handle = ::dlopen(spec.soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    error = std::string{spec.feature} + " needs " + spec.soname
            + " (install the Debian package " + spec.package
            + "): " + dl_reason();
  return handle;
}

void* library_symbol(void* handle, const library_spec& spec, const char* name,
                     std::string& error) {
  ::dlerror(); // clear a stale message
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr)
    error = std::string{spec.soname} + " has no function " + name
            + " (a version older than " + spec.feature
            + " was built for?): " + dl_reason();
  return symbol;
}

} // namespace nb
