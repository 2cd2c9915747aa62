#include "actors/browser/snapshot.hpp"

#include <set>
#include <unordered_map>
#include <utility>

#include "actors/common/utf8.hpp"

namespace nb {

using json = nlohmann::json;

namespace {

constexpr size_t max_depth = 60;
constexpr size_t max_name = 200;

std::string field_value(const json& node, const char* key) {
  auto it = node.find(key);
  if (it == node.end() || !it->is_object())
    return {};
  auto v = it->find("value");
  if (v == it->end())
    return {};
  if (v->is_string())
    return v->get<std::string>();
  if (v->is_number() || v->is_boolean())
    return v->dump();
  return {};
}

std::string one_line(std::string s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    bool ws = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (ws) {
      space = !out.empty();
      continue;
    }
    if (space)
      out.push_back(' ');
    space = false;
    out.push_back(c == '"' ? '\'' : c);
  }
  if (out.size() > max_name)
    out = std::string{utf8_head(out, max_name)} + "…";
  return out;
}

// Roles that only group others: not printed, their children move up.
bool transparent(const std::string& role, const std::string& name) {
  static const std::set<std::string> roles{
    "none",      "generic",       "GenericContainer", "InlineTextBox",
    "LineBreak", "paragraph",     "Section",          "group",
    "Div",       "LayoutTable",   "LayoutTableRow",   "LayoutTableCell",
    "Pre",       "MenuListPopup", "ignored",          "presentation"};
  return roles.count(role) && (name.empty() || role == "InlineTextBox"
                               || role == "MenuListPopup");
}

std::string properties(const json& node) {
  std::string out;
  auto it = node.find("properties");
  if (it == node.end() || !it->is_array())
    return out;
  for (auto& p : *it) {
    if (!p.is_object())
      continue;
    auto name = p.value("name", std::string{});
    auto value = field_value(p, "value");
    if (name == "level" && !value.empty())
      out += " [level=" + value + "]";
    else if ((name == "checked" || name == "pressed") && value != "false"
             && !value.empty())
      out += value == "mixed" ? " [" + name + "=mixed]" : " [" + name + "]";
    else if ((name == "disabled" || name == "selected" || name == "required"
              || name == "focused" || name == "readonly")
             && value == "true")
      out += " [" + name + "]";
    else if (name == "expanded")
      out += value == "true" ? " [expanded]" : " [collapsed]";
  }
  return out;
}

struct renderer {
  const std::unordered_map<std::string, const json*>& by_id;
  size_t max_chars;
  page_snapshot out;
  std::set<std::string> seen;
  size_t hidden_lines = 0;

  void line(const std::string& text) {
    if (out.truncated || out.text.size() + text.size() + 1 > max_chars) {
      out.truncated = true;
      ++hidden_lines;
      return;
    }
    out.text += text;
    out.text.push_back('\n');
  }

  void walk(const json& node, size_t depth, const std::string& parent_name) {
    auto id = node.contains("nodeId") ? node["nodeId"].dump() : "";
    if (!seen.insert(id).second || depth > max_depth)
      return; // a cycle, or absurd nesting
    bool ignored = node.value("ignored", false);
    auto role = field_value(node, "role");
    auto name = one_line(field_value(node, "name"));
    size_t child_depth = depth;
    std::string child_parent = parent_name;
    if (role == "StaticText") {
      // Text that merely repeats its parent's name says nothing new.
      if (!name.empty() && name != parent_name)
        line(std::string(depth * 2, ' ') + "- text \"" + name + "\"");
      return;
    }
    if (!ignored && role != "RootWebArea" && !transparent(role, name)) {
      std::string text = std::string(depth * 2, ' ') + "- " + role;
      if (!name.empty())
        text += " \"" + name + "\"";
      int64_t backend = node.value("backendDOMNodeId", int64_t{0});
      if (interactive_role(role) && backend > 0 && !out.truncated) {
        snapshot_ref r;
        r.ref = static_cast<int>(out.refs.size()) + 1;
        r.backend_node = backend;
        r.role = role;
        r.name = name;
        text += " [ref=" + std::to_string(r.ref) + "]";
        if (out.text.size() + text.size() + 1 <= max_chars)
          out.refs.push_back(std::move(r));
      }
      text += properties(node);
      auto value = one_line(field_value(node, "value"));
      if (!value.empty() && value != name)
        text += ": " + value;
      line(text);
      child_depth = depth + 1;
      child_parent = name;
    }
    auto kids = node.find("childIds");
    if (kids == node.end() || !kids->is_array())
      return;
    for (auto& k : *kids) {
      auto key = k.is_string() ? k.get<std::string>() : k.dump();
      auto c = by_id.find(key);
      if (c != by_id.end())
        walk(*c->second, child_depth, child_parent);
    }
  }
};

} // namespace

bool interactive_role(const std::string& role) {
  static const std::set<std::string> roles{
    "button",     "link",          "textbox",          "searchbox",
    "checkbox",   "radio",         "combobox",         "listbox",
    "option",     "menuitem",      "menuitemcheckbox", "menuitemradio",
    "tab",        "switch",        "slider",           "spinbutton",
    "treeitem",   "ComboBoxSelect", "TextField",       "textField"};
  return roles.count(role) > 0;
}

page_snapshot render_snapshot(const json& nodes, size_t max_chars) {
  std::unordered_map<std::string, const json*> by_id;
  const json* root = nullptr;
  if (nodes.is_array()) {
    for (auto& n : nodes) {
      if (!n.is_object() || !n.contains("nodeId"))
        continue;
      auto& id = n["nodeId"];
      by_id[id.is_string() ? id.get<std::string>() : id.dump()] = &n;
      if (!root && !n.contains("parentId"))
        root = &n;
    }
  }
  renderer r{by_id, max_chars, {}, {}, 0};
  if (root)
    r.walk(*root, 0, {});
  if (r.out.truncated)
    r.out.text += "[snapshot cut at " + std::to_string(max_chars)
                  + " characters; " + std::to_string(r.hidden_lines)
                  + " more lines not shown: scroll, or get_text]\n";
  if (r.out.text.empty())
    r.out.text = "(the page shows nothing the accessibility tree exposes)\n";
  return std::move(r.out);
}

} // namespace nb
