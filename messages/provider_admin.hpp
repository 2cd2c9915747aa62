// Changing the provider of a running gateway (the WebUI's setup, issue 20):
// the message, the two wider views of the provider and the supervisor that
// take it, and their type-ID block. Kept out of session.hpp and
// interfaces.hpp, which nearly every file includes; only the provider, the
// supervisor and the WebSocket channel need these.
#pragma once

#include <string>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/type_id.hpp>
#include <caf/typed_actor.hpp>

#include "messages/interfaces.hpp"
#include "messages/memory.hpp"

namespace nb {

/// New provider settings for a running gateway: the config file's text as
/// it was saved. The provider takes the model choice from it
/// (agents.defaults.model, .provider and .fallbackModels, providers,
/// modelPresets); everything else keeps its start-up value until a restart.
struct provider_config {
  std::string config_json;
  std::string config_path; ///< named in errors
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, provider_config& x) {
  return f(caf::meta::type_name("provider_config"), x.config_json,
           x.config_path);
}

/// The provider in effect, as JSON text without secrets: {"ready",
/// "problem", "provider", "model", "api_base", "key_source"}.
using provider_status_atom = caf::atom_constant<caf::atom("provstatus")>;

/// The gateway supervisor's name in CAF's actor registry: the WebUI's
/// setup reaches the provider settings through it.
using supervisor_atom = caf::atom_constant<caf::atom("supervisor")>;

/// What the provider actor answers besides model_request: provider_config
/// (swap the model choice without a restart; answered once in effect, an
/// error names the bad key) and provider_status_atom. Sessions hold the
/// narrower provider_actor; actor_cast gives this view of the same actor.
using provider_admin_actor = provider_actor::extend<
  caf::replies_to<provider_config>::with<caf::ok_atom>,
  caf::replies_to<provider_status_atom>::with<std::string>>;

/// The supervisor's wider view: it hands provider_config to the running
/// provider, keeps it for one it restarts, and forwards status questions.
using supervisor_admin_actor = supervisor_actor::extend<
  caf::replies_to<provider_config>::with<caf::ok_atom>,
  caf::replies_to<provider_status_atom>::with<std::string>>;

} // namespace nb

CAF_BEGIN_TYPE_ID_BLOCK(nb_admin, caf::id_block::nb_memory::end)

  CAF_ADD_TYPE_ID(nb_admin, (nb::provider_config))

CAF_END_TYPE_ID_BLOCK(nb_admin)
