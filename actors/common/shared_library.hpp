// A system library opened when a feature first needs it instead of at
// process start: libcurl (the Email channel) and libpq (the PostgreSQL
// store), with everything they pull in, are most of the libraries a gateway
// would map, and most gateways never use them; SQLite (the memory index)
// and libedit (the terminal chat) are opened when first used too. Every
// library mapped at start costs its relocations and pages in every process,
// used or not. The library is opened by its
// soname, which pins the ABI the headers we compiled against describe; the
// error names the Debian package to install when it is missing.
#pragma once

#include <string>

namespace nb {

/// A library loaded on demand, and who needs it (for the error text).
struct library_spec {
  const char* soname;  ///< "libcurl.so.4"
  const char* package; ///< the Debian package that ships it, "libcurl4"
  const char* feature; ///< "the Email channel"
};

/// Opens `spec` (RTLD_NOW: a missing symbol fails here, not mid-call).
/// Blocking file I/O: call it from a worker thread, never a scheduler's.
/// Null with `error` set ("the Email channel needs libcurl.so.4 (install
/// the Debian package libcurl4): ...") when the library is not there.
void* open_library(const library_spec& spec, std::string& error);

/// The function `name` of an opened library; null with `error` set when
/// the library has no such function.
void* library_symbol(void* handle, const library_spec& spec, const char* name,
                     std::string& error);

/// Binds `fn` to the function `name` (library_symbol, typed).
template <class Fn>
bool bind_function(void* handle, const library_spec& spec, const char* name,
                   Fn*& fn, std::string& error) {
  fn = reinterpret_cast<Fn*>(library_symbol(handle, spec, name, error));
  return fn != nullptr;
}

/// A library's function table loaded once per process (a function-local
/// static, see open_functions), or why it could not be.
template <class Functions>
struct loaded_functions {
  Functions functions{};
  std::string error;

  /// The functions, or null with `why` set.
  const Functions* get(std::string& why) const {
    if (!error.empty()) {
      why = error;
      return nullptr;
    }
    return &functions;
  }
};

/// Opens `spec` and fills a `Functions` table: `bind_all(table, bind)`
/// binds each member with `bind("name", table.member)` (false once one is
/// missing, which is kept as the error) and returns "" or why the library
/// cannot be used after all (an initialisation that failed).
template <class Functions, class BindAll>
loaded_functions<Functions> open_functions(const library_spec& spec,
                                           BindAll bind_all) {
  loaded_functions<Functions> out;
  void* handle = open_library(spec, out.error);
  if (handle == nullptr)
    return out;
  auto bind = [&](const char* name, auto*& fn) {
    return bind_function(handle, spec, name, fn, out.error);
  };
  std::string unusable = bind_all(out.functions, bind);
  if (out.error.empty())
    out.error = std::move(unusable);
  return out;
}

} // namespace nb
