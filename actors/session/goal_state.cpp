#include "actors/session/goal_state.hpp"

#include <algorithm>

#include "actors/common/strings.hpp"

namespace nb::goal {

namespace {

using json = nlohmann::json;

constexpr const char* create_unavailable =
  "Error: create_goal is unavailable for this turn. Ask the user to submit "
  "the complete objective as `/goal <task>`.";
constexpr const char* replace_unavailable =
  "Error: replacing the goal is unavailable for this turn. Ask the user to "
  "submit the replacement objective as `/goal <task>`.";

/// Characters as Python counts them (code points), for the length limits.
size_t goal_chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

/// The first `max` code points of `s`.
std::string goal_head(const std::string& s, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == max)
      return s.substr(0, i);
  }
  return s;
}

/// `s` without trailing white space (Python's rstrip).
std::string goal_rstrip(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.pop_back();
  return s;
}

std::string goal_text(const json& obj, const char* key) {
  auto i = obj.find(key);
  if (i == obj.end() || i->is_null())
    return {};
  return i->is_string() ? i->get<std::string>() : i->dump();
}

/// The parameter checks the original's registry makes against the schema
/// before the tool runs; "" when the arguments pass.
struct goal_param {
  const char* name;
  bool required;
  size_t max_chars;
  size_t min_chars;
};

std::string check_params(const std::string& tool, const json& args,
                         const std::vector<goal_param>& params) {
  std::string errors;
  auto add = [&](const std::string& e) {
    errors += (errors.empty() ? "" : "; ") + e;
  };
  for (auto& p : params) {
    auto i = args.find(p.name);
    if (i == args.end() || (i->is_null() && p.required)) {
      if (p.required)
        add(std::string{"missing required "} + p.name);
      continue;
    }
    if (i->is_null())
      continue;
    if (!i->is_string()) {
      add(std::string{p.name} + " should be string");
      continue;
    }
    auto n = goal_chars(i->get<std::string>());
    if (n < p.min_chars)
      add(std::string{p.name} + " must be at least "
          + std::to_string(p.min_chars) + " chars");
    if (n > p.max_chars)
      add(std::string{p.name} + " must be at most "
          + std::to_string(p.max_chars) + " chars");
  }
  if (errors.empty())
    return {};
  return "Error: Invalid parameters for tool '" + tool + "': " + errors;
}

change goal_error(std::string text) {
  change c;
  c.text = std::move(text);
  c.is_error = true;
  return c;
}

/// The patch that makes the stored goal exactly `blob`: keys of the old
/// one that `blob` lacks are removed (a merge patch would keep them).
json replacing(const json& metadata, json blob, bool reset_rounds) {
  auto old = parse_state(metadata);
  auto target = blob;
  if (old.is_object() && metadata.contains(state_key)
      && metadata[state_key].is_object())
    for (auto& [k, v] : old.items())
      if (!target.contains(k))
        target[k] = nullptr;
  json patch{{state_key, target}};
  // Writes go to the current key; the older one is dropped.
  if (metadata.contains(legacy_state_key))
    patch[legacy_state_key] = nullptr;
  if (reset_rounds && metadata.contains(rounds_key))
    patch[rounds_key] = nullptr;
  // A goal stored as JSON text is replaced whole, not merged into.
  if (metadata.contains(state_key) && !metadata[state_key].is_object())
    patch[state_key] = std::move(blob);
  return patch;
}

std::string summary_line(const std::string& summary) {
  return summary.empty() ? std::string{} : "\nSummary line: " + summary;
}

change create_goal(const json& meta, const json& args, bool allowed,
                   const std::string& now) {
  if (!allowed)
    return goal_error(create_unavailable);
  auto prior = parse_state(meta);
  if (prior.is_object() && prior.value("status", json()) == "active")
    return goal_error("Error: a sustained goal is already active. Use "
                      "update_goal with action='replace' only if the user "
                      "explicitly changes the objective.");
  auto objective = trim_space(goal_text(args, "objective"));
  if (objective.empty())
    return goal_error("Error: objective must not be empty.");
  if (goal_chars(objective) > max_objective_chars)
    return goal_error("Error: objective must not exceed 4000 characters.");
  auto summary = goal_head(trim_space(goal_text(args, "ui_summary")), 120);
  json blob{{"status", "active"},
            {"objective", objective},
            {"ui_summary", summary},
            {"started_at", now}};
  change c;
  c.patch = replacing(meta, std::move(blob), true);
  c.text = "Goal recorded. Keep working toward the objective using ordinary "
           "tools. When fully done and verified, call update_goal with "
           "action='complete'."
           + summary_line(summary);
  return c;
}

change update_goal(const json& meta, const json& args, bool allowed,
                   const std::string& now) {
  auto prior = parse_state(meta);
  if (!prior.is_object() || prior.value("status", json()) != "active") {
    change c;
    c.text = "No active goal to update.";
    return c;
  }
  auto action = ascii_lower(trim_space(goal_text(args, "action")));
  auto recap = trim_space(goal_text(args, "recap"));
  if (action == "replace") {
    if (!allowed)
      return goal_error(replace_unavailable);
    auto objective = trim_space(goal_text(args, "objective"));
    if (objective.empty())
      return goal_error("Error: update_goal action='replace' requires a "
                        "replacement objective.");
    if (goal_chars(objective) > max_objective_chars)
      return goal_error("Error: objective must not exceed 4000 characters.");
    auto summary = goal_head(trim_space(goal_text(args, "ui_summary")), 120);
    json blob{{"status", "active"},
              {"objective", objective},
              {"ui_summary", summary},
              {"started_at", now},
              {"replaced_at", now},
              {"previous_objective", goal_text(prior, "objective")},
              {"recap", recap}};
    change c;
    c.patch = replacing(meta, std::move(blob), true);
    c.text = "Goal replaced. Continue toward the new objective using "
             "ordinary tools."
             + summary_line(summary);
    return c;
  }
  const char* status = nullptr;
  const char* label = nullptr;
  if (action == "complete") {
    status = "completed";
    label = "complete";
  } else if (action == "cancel") {
    status = label = "cancelled";
  } else if (action == "block") {
    status = label = "blocked";
  } else {
    return goal_error("Error: action must be one of complete, cancel, "
                      "block, or replace.");
  }
  auto blob = prior;
  blob["status"] = status;
  blob["ended_at"] = now;
  blob["recap"] = recap;
  if (action == "complete")
    blob["completed_at"] = now;
  change c;
  c.patch = replacing(meta, std::move(blob), false);
  c.revoke = true;
  c.text = std::string{"Goal marked "} + label + " (" + now + ").";
  if (!recap.empty())
    c.text =
      std::string{"Goal marked "} + label + " (" + now + "). Recap:\n" + recap;
  return c;
}

} // namespace

json parse_state(const json& metadata) {
  if (!metadata.is_object())
    return nullptr;
  auto i = metadata.find(state_key);
  if (i == metadata.end())
    i = metadata.find(legacy_state_key);
  if (i == metadata.end())
    return nullptr;
  if (i->is_object())
    return *i;
  if (i->is_string()) {
    auto parsed = json::parse(i->get<std::string>(), nullptr, false);
    if (parsed.is_object())
      return parsed;
  }
  return nullptr;
}

bool active(const json& metadata) {
  auto g = parse_state(metadata);
  return g.is_object() && g.value("status", json()) == "active";
}

int rounds(const json& metadata) {
  if (!metadata.is_object())
    return 0;
  auto i = metadata.find(rounds_key);
  if (i == metadata.end())
    return 0;
  if (i->is_number_integer())
    return std::max(0, i->get<int>());
  if (i->is_string())
    try {
      return std::max(0, std::stoi(i->get<std::string>()));
    } catch (...) {
    }
  return 0;
}

std::vector<std::string> runtime_lines(const json& metadata) {
  auto g = parse_state(metadata);
  if (!g.is_object() || g.value("status", json()) != "active")
    return {};
  auto objective = trim_space(goal_text(g, "objective"));
  if (objective.empty())
    return {"Goal: active (no objective text stored)."};
  if (goal_chars(objective) > max_objective_chars)
    objective = goal_rstrip(goal_head(objective, max_objective_chars))
                + "\n… (truncated)";
  std::vector<std::string> out{"Goal (active):", objective};
  auto summary = trim_space(goal_text(g, "ui_summary"));
  if (!summary.empty())
    out.push_back("Summary: " + summary);
  return out;
}

json ws_blob(const json& metadata) {
  auto g = parse_state(metadata);
  auto status = g.is_object() ? g.value("status", json()) : json();
  if (status != "active" && status != "blocked")
    return {{"active", false}};
  json out{{"active", status == "active"}, {"status", status}};
  auto summary = goal_head(trim_space(goal_text(g, "ui_summary")), 120);
  if (!summary.empty())
    out["ui_summary"] = summary;
  auto objective = trim_space(goal_text(g, "objective"));
  if (goal_chars(objective) > 600)
    objective = goal_rstrip(goal_head(objective, 600)) + "…";
  if (!objective.empty())
    out["objective"] = objective;
  auto recap = goal_head(trim_space(goal_text(g, "recap")), 240);
  if (!recap.empty())
    out["recap"] = recap;
  return out;
}

change apply(const std::string& tool, const std::string& arguments_json,
             const json& metadata, bool allowed, const std::string& now) {
  auto text = trim_space(arguments_json);
  auto args = text.empty() ? json::object() : json::parse(text, nullptr, false);
  if (args.is_string()) // arguments sent as a JSON text inside a string
    args = json::parse(args.get<std::string>(), nullptr, false);
  if (args.is_discarded() || !args.is_object())
    return goal_error("Error: Invalid parameters for tool '" + tool
                      + "': arguments must be a JSON object");
  if (tool == "create_goal") {
    auto bad = check_params(tool, args,
                            {{"objective", true, max_objective_chars, 1},
                             {"ui_summary", false, 120, 0}});
    if (!bad.empty())
      return goal_error(bad);
    return create_goal(metadata, args, allowed, now);
  }
  auto bad = check_params(tool, args,
                          {{"action", true, 64, 0},
                           {"recap", false, 8000, 0},
                           {"objective", false, max_objective_chars, 0},
                           {"ui_summary", false, 120, 0}});
  if (bad.empty()) {
    auto a = args["action"].get<std::string>();
    if (a != "complete" && a != "cancel" && a != "block" && a != "replace")
      bad = "Error: Invalid parameters for tool 'update_goal': action must be "
            "one of [\"complete\",\"cancel\",\"block\",\"replace\"]";
  }
  if (!bad.empty())
    return goal_error(bad);
  return update_goal(metadata, args, allowed, now);
}

} // namespace nb::goal
