// The tools front's catalog: the tool list a session's turns offer the
// model, one immutable snapshot per change (a reload, an MCP server's
// listing) that sessions keep between turns instead of asking for the list
// at every turn. Whoever asked for it is sent each new snapshot, so a
// change reaches the next turn of every chat.
#include <algorithm>

#include "actors/common/timed_request.hpp"
#include "actors/common/tool_definition.hpp"
#include "actors/tools/tools_front.hpp"

namespace nb {

namespace {

// How long one listing waits for MCP servers that have not answered yet; a
// slow or broken server is skipped and asked again next time.
constexpr auto mcp_list_wait = std::chrono::seconds(20);

/// Built-ins, then MCP tools by name, less what the agent's tools.allow /
/// tools.deny forbid (what it may not call, it does not see either).
std::vector<tool_spec> catalog_specs(const tools_state& st) {
  auto out = st.registry->definitions();
  auto mcp = st.mcp_specs;
  std::sort(mcp.begin(), mcp.end(),
            [](auto& a, auto& b) { return a.name < b.name; });
  out.insert(out.end(), std::make_move_iterator(mcp.begin()),
             std::make_move_iterator(mcp.end()));
  std::erase_if(out, [&](const tool_spec& t) {
    return !tool_permitted(t.name, st.base.allow_tools, st.base.deny_tools);
  });
  return out;
}

std::vector<std::string> unlisted_mcp_servers(const tools_state& st) {
  std::vector<std::string> out;
  for (auto& [name, _] : st.mcp)
    if (!st.mcp_listed.count(name))
      out.push_back(name);
  return out;
}

} // namespace

void refresh_catalog(tools_front_pointer self) {
  auto& st = self->state;
  tool_catalog next;
  next.version = st.catalog.version + 1;
  next.complete = unlisted_mcp_servers(st).empty();
  next.specs = std::make_shared<const std::vector<tool_spec>>(
    catalog_specs(st));
  st.catalog = std::move(next);
  for (auto it = st.catalog_holders.begin();
       it != st.catalog_holders.end();) {
    if (auto holder = caf::actor_cast<tool_catalog_sink>(*it)) {
      self->send(holder, st.catalog);
      ++it;
    } else {
      it = st.catalog_holders.erase(it);
    }
  }
}

void hold_catalog(tools_front_pointer self) {
  auto sender = self->current_sender();
  if (!sender)
    return;
  auto addr = caf::actor_cast<caf::actor_addr>(sender);
  if (self->state.catalog_holders.insert(addr).second)
    self->monitor(addr);
}

void forget_holder(tools_front_pointer self, const caf::down_msg& down) {
  self->state.catalog_holders.erase(down.source);
}

void list_unlisted_mcp(tools_front_pointer self, std::function<void()> then) {
  auto pending = unlisted_mcp_servers(self->state);
  if (pending.empty()) {
    then();
    return;
  }
  auto left = std::make_shared<size_t>(pending.size());
  auto done = [left, then = std::move(then)]() {
    if (--*left == 0)
      then();
  };
  for (auto& name : pending) {
    auto server = self->state.mcp[name];
    timed_request(self, server, mcp_list_wait, list_tools_atom::value)
      .then(
        [self, name, server, done](std::vector<tool_spec>& specs) {
          auto& st = self->state;
          if (!st.mcp_listed.count(name)) {
            st.mcp_listed.insert(name);
            for (auto& s : specs) {
              st.mcp_routes[s.name] = server;
              st.mcp_specs.push_back(with_definition(std::move(s)));
            }
            refresh_catalog(self);
          }
          done();
        },
        [done](caf::error&) { done(); });
  }
}

} // namespace nb
