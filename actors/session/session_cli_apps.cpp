// BUILD: the CLI apps a turn's message names, for its runtime context. The
// WebUI's attachments ride in the inbound metadata; mentions are `@name`
// in the text. Reading installed.json and the skills is file work, so it
// runs in a task of its own; a slow or failed read only leaves the lines
// out.
#include <chrono>
#include <functional>

#include "actors/common/blocking_task.hpp"
#include "actors/session/session_steps.hpp"
#include "actors/tools/cli_app_mentions.hpp"

namespace nb {

namespace {

constexpr auto cli_app_read_limit = std::chrono::seconds(10);

nlohmann::json attached_cli_apps(const inbound_msg& in) {
  if (in.metadata_json.find(cli_apps_meta_key) == std::string::npos)
    return nlohmann::json::array(); // most messages: no parse
  auto meta = nlohmann::json::parse(in.metadata_json, nullptr, false);
  if (!meta.is_object() || !meta.contains(cli_apps_meta_key))
    return nlohmann::json::array();
  return normalize_cli_app_mentions(meta[cli_apps_meta_key]);
}

} // namespace

void fetch_cli_app_lines(session_pointer self, std::function<void()> then) {
  auto& st = self->state;
  const auto& in = st.turn->message;
  auto attached = attached_cli_apps(in);
  if (!st.cfg.cli_apps || in.channel == "system"
      || !may_name_cli_apps(in.content, attached)) {
    then();
    return;
  }
  auto task = blocking_task(
    self, "nb.cli-mention",
    [text = in.content, attached, config_dir = st.cfg.config_dir,
     workspace = st.cfg.workspace] {
      std::string out;
      for (auto& line :
           cli_app_context_lines(text, attached, config_dir, workspace))
        out += "\n" + line;
      return out;
    });
  auto turn_no = st.turn_number;
  timed_request(self, task, cli_app_read_limit, caf::get_atom::value)
    .then(
      [=](std::string& lines) {
        auto& st = self->state;
        if (st.turn && st.turn_number == turn_no)
          st.turn->cli_app_lines = std::move(lines);
        then();
      },
      [=](caf::error& err) {
        self->state.log->warn("[{}] the CLI apps this message names were "
                              "not read: {}",
                              self->state.key, render(self, err));
        then();
      });
}

} // namespace nb
