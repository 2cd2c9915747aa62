#include "actors/workspace/system_message_pool.hpp"

#include <algorithm>
#include <functional>

namespace nb {

namespace {

bool system_pool_holds(const model_message& m, const std::string& prompt) {
  auto c = m.fields().find("content");
  return c != m.fields().end() && c->is_string()
         && c->get_ref<const std::string&>() == prompt;
}

} // namespace

shared_model_message system_message_pool::get(const std::string& prompt) {
  auto key = std::hash<std::string>{}(prompt);
  auto [from, to] = made_.equal_range(key);
  for (auto i = from; i != to; ++i)
    if (auto m = i->second.lock(); m && system_pool_holds(*m, prompt))
      return m;
  if (made_.size() >= sweep_at_)
    sweep();
  auto made = make_model_message({{"role", "system"}, {"content", prompt}});
  made_.emplace(key, made);
  return made;
}

void system_message_pool::sweep() {
  for (auto i = made_.begin(); i != made_.end();)
    i = i->second.expired() ? made_.erase(i) : std::next(i);
  // Amortised: the next sweep once the live entries have doubled.
  sweep_at_ = std::max<size_t>(64, 2 * made_.size());
}

} // namespace nb
