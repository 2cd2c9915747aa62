// /skill: the skills the agent can use, including unavailable ones.
#include "actors/session/commands.hpp"

#include <cstdlib>

#include "actors/skills/skills.hpp"

namespace nb {

command_reply cmd_skill(command_context& ctx) {
  auto path = std::getenv("PATH");
  auto skills = list_skills(ctx.workspace, path ? path : "");
  if (ctx.disabled_skills) {
    skill_selection offered{false, {}, *ctx.disabled_skills};
    std::erase_if(skills,
                  [&](const skill_info& s) { return !offered.offers(s.name); });
  }
  if (skills.empty())
    return {"No skills installed. Put one in skills/<name>/SKILL.md in the "
            "workspace."};
  std::string out = "Available skills (" + std::to_string(skills.size()) + "):";
  for (auto& s : skills) {
    out += "\n- **" + s.name + "** — " + s.description;
    if (s.always)
      out += " [always on]";
    if (!s.available)
      out += " (unavailable: " + s.missing + ")";
  }
  return {out};
}

} // namespace nb
