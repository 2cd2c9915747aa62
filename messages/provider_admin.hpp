// Changing the provider and the tools of a running gateway (the WebUI's
// setup and settings, issue 20):
// the message, the two wider views of the provider and the supervisor that
// take it, and their type-ID block. Kept out of session.hpp and
// interfaces.hpp, which nearly every file includes; only the provider, the
// supervisor and the WebSocket channel need these.
#pragma once

#include <map>
#include <string>
#include <vector>

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

/// A stdio MCP server an enabled Agent Plugin brings, as its mcp.json was
/// resolved (command, folders and PLUGIN_ROOT / PLUGIN_DATA filled in).
struct plugin_mcp_server {
  std::string name; ///< "<plugin>" or "<plugin>--<server>"
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string cwd;
  std::string agent = "main"; ///< whose workspace enabled it
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, plugin_mcp_server& x) {
  return f(caf::meta::type_name("plugin_mcp_server"), x.name, x.command, x.args,
           x.env, x.cwd, x.agent);
}

/// New tools settings for a running gateway (the WebUI's tools and MCP
/// pages): the config file's text as saved. Each tools front rebuilds its
/// built-in tools from it (exec, web search, restrictToWorkspace, ...) and
/// starts, stops or restarts the MCP servers whose entries changed; calls
/// already running finish as they started. Answered "" once in effect, else
/// the error (it names the key).
/// What the sender read beside the file (the tools front reads no files):
/// the enabled Agent Plugins' MCP servers and the installed CLI apps.
struct tools_config {
  std::string config_json;
  std::string config_path; ///< named in errors
  std::vector<plugin_mcp_server> plugin_servers;
  std::vector<std::string> cli_apps_installed; ///< names in installed.json
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tools_config& x) {
  return f(caf::meta::type_name("tools_config"), x.config_json, x.config_path,
           x.plugin_servers, x.cli_apps_installed);
}

/// The tools front's wider view: it also takes tools_config, and answers
/// sessions the catalog of its tools (sending them each newer one).
using tools_admin_actor =
  tools_actor::extend<caf::replies_to<tools_config>::with<caf::ok_atom>,
                      caf::replies_to<tool_catalog_atom>::with<tool_catalog>>;

/// Who holds a tools front's catalog (a session): sent each newer one.
using tool_catalog_sink = caf::typed_actor<caf::reacts_to<tool_catalog>>;

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
/// provider, keeps it for one it restarts, and forwards status questions;
/// tools_config goes to the gateway's tools front and, through the router,
/// to every agent's (kept, like the provider's, for fronts started later).
using supervisor_admin_actor = supervisor_actor::extend<
  caf::replies_to<provider_config>::with<caf::ok_atom>,
  caf::replies_to<provider_status_atom>::with<std::string>,
  caf::replies_to<tools_config>::with<caf::ok_atom>>;

} // namespace nb

CAF_BEGIN_TYPE_ID_BLOCK(nb_admin, caf::id_block::nb_memory::end)

  CAF_ADD_TYPE_ID(nb_admin, (nb::provider_config))
  CAF_ADD_TYPE_ID(nb_admin, (nb::tools_config))

  CAF_END_TYPE_ID_BLOCK(nb_admin)
