// The exception guard for actor handlers. In CAF 0.17 an exception that
// escapes a handler ends the actor (and with it every message queued for
// it): a session would lose its chat's queue over one bad JSON line. Wrap
// each handler instead:
//
//   return {
//     guard("session", [=](inbound_msg& in) { ... }),
//     guard("session", [=](flush_atom) -> caf::result<bool> { ... }),
//   };
//
// The wrapper has the handler's exact signature (CAF reads it to type the
// behaviour); a handler with an answer answers with an error instead, one
// without just logs.
#pragma once

#include <exception>
#include <string>
#include <type_traits>
#include <utility>

#include <caf/delegated.hpp>
#include <caf/detail/type_list.hpp>
#include <caf/detail/type_traits.hpp>
#include <caf/result.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/common/log.hpp"
#include "messages/errc.hpp"

namespace nb {

/// Logs an exception a guard caught and returns it as an error value.
caf::error guarded_failure(const char* kind, std::exception_ptr e);

namespace detail {

/// The result type a guarded handler returns for a handler returning R.
template <class R>
struct guarded_result {
  using type = caf::result<R>;
};
template <>
struct guarded_result<void> {
  using type = void;
};
template <class... Ts>
struct guarded_result<caf::result<Ts...>> {
  using type = caf::result<Ts...>;
};
template <class... Ts>
struct guarded_result<caf::delegated<Ts...>> {
  using type = caf::result<Ts...>;
};
template <class... Ts>
struct guarded_result<caf::typed_response_promise<Ts...>> {
  using type = caf::result<Ts...>;
};

template <class F, class R, class... Ts>
auto make_guarded(const char* kind, F f, caf::detail::type_list<Ts...>) {
  using out = typename guarded_result<std::decay_t<R>>::type;
  return [kind, f = std::move(f)](Ts... xs) mutable -> out {
    try {
      if constexpr (std::is_void_v<out>)
        f(std::forward<Ts>(xs)...);
      else
        return f(std::forward<Ts>(xs)...);
    } catch (...) {
      auto err = guarded_failure(kind, std::current_exception());
      if constexpr (!std::is_void_v<out>)
        return err;
    }
  };
}

} // namespace detail

/// `handler` under the exception guard; `kind` names the actor in the log.
template <class F>
auto guard(const char* kind, F handler) {
  using trait = caf::detail::get_callable_trait<F>;
  return detail::make_guarded<F, typename trait::result_type>(
    kind, std::move(handler), typename trait::arg_types{});
}

} // namespace nb
