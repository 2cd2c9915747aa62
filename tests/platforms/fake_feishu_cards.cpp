// The scripted Feishu's CardKit: card entities created from card JSON 2.0,
// the streaming text of one element set in full, and the card's settings
// (streaming_mode). Every operation on a card carries a sequence that has
// to exceed the card's last one, and a text update needs streaming mode
// on, as CardKit has it.
#include "tests/platforms/fake_feishu_impl.hpp"

#include <functional>

namespace nb::test {

namespace {

/// The element `id` of a created card's body, or null.
json* feishu_card_element(json& card, const std::string& id) {
  auto& els = card["card"]["body"]["elements"];
  if (!els.is_array())
    return nullptr;
  for (auto& el : els)
    if (el.is_object() && el.value("element_id", "") == id)
      return &el;
  return nullptr;
}

/// The card `id`, or null with the answer written.
json* feishu_card_of(std::map<std::string, json>& cards, const std::string& id,
                     httplib::Response& res) {
  auto it = cards.find(id);
  if (it != cards.end())
    return &it->second;
  res.status = 400;
  res.set_content(json{{"code", 99992402}, {"msg", "card not found"}}.dump(),
                  "application/json; charset=utf-8");
  return nullptr;
}

} // namespace

void fake_feishu::impl::card_routes() {
  auto refuse = [](httplib::Response& res, json& card, const std::string& why) {
    card["refused"] = card["refused"].get<int>() + 1;
    answer(res, {{"code", 99992402}, {"msg", "field validation failed: " + why}},
           400);
  };
  // The sequence must grow; a refused call leaves it where it was.
  auto in_order = [refuse](httplib::Response& res, json& card,
                           const json& body) {
    auto seq = body.value("sequence", json{});
    if (!seq.is_number_integer()
        || seq.get<int64_t>() <= card["sequence"].get<int64_t>()) {
      refuse(res, card, "sequence must exceed " + card["sequence"].dump());
      return false;
    }
    card["sequence"] = seq;
    return true;
  };
  rest.Post("/open-apis/cardkit/v1/cards",
            [this](const httplib::Request& req, httplib::Response& res) {
              if (!authorised(req, res))
                return;
              auto b = json::parse(req.body, nullptr, false);
              auto card =
                b.is_object() && b.value("type", "") == "card_json"
                    && b["data"].is_string()
                  ? json::parse(b["data"].get<std::string>(), nullptr, false)
                  : json{};
              std::lock_guard<std::mutex> g{mx};
              if (refuse_cards)
                return answer(res, {{"code", 99991672},
                                    {"msg", "Access denied. One of the "
                                            "following scopes is required: "
                                            "[cardkit:card:write]"}},
                              400);
              if (!card.is_object() || card.value("schema", "") != "2.0")
                return answer(res, {{"code", 99992402},
                                    {"msg", "field validation failed: data"}},
                              400);
              auto id = "7355372766134157" + std::to_string(cards.size() + 1);
              bool streaming = card["config"].value("streaming_mode", false);
              cards[id] = json{{"card_id", id},      {"card", card},
                               {"text", ""},         {"streaming", streaming},
                               {"sequence", 0},      {"updates", 0},
                               {"refused", 0}};
              card_order.push_back(id);
              answer(res, {{"code", 0}, {"msg", "success"},
                           {"data", {{"card_id", id}}}});
            });
  // An operation on an existing card: authorised, the body parsed, the
  // card looked up, all under the lock.
  using card_op = std::function<void(const httplib::Request&,
                                     httplib::Response&, json& card,
                                     const json& body)>;
  auto on_card = [this](card_op op) {
    return [this, op](const httplib::Request& req, httplib::Response& res) {
      if (!authorised(req, res))
        return;
      auto b = json::parse(req.body, nullptr, false);
      std::lock_guard<std::mutex> g{mx};
      if (auto* card = feishu_card_of(cards, req.matches[1].str(), res))
        op(req, res, *card, b);
    };
  };
  rest.Put(R"(/open-apis/cardkit/v1/cards/([^/]+)/elements/([^/]+)/content)",
           on_card([refuse, in_order](const httplib::Request& req,
                                      httplib::Response& res, json& card,
                                      const json& b) {
             auto* el = feishu_card_element(card, req.matches[2].str());
             if (el == nullptr || !b.is_object() || !b["content"].is_string())
               return refuse(res, card, "element_id or content");
             if (!card["streaming"].get<bool>())
               return refuse(res, card, "streaming_mode of the card is off");
             if (!in_order(res, card, b))
               return;
             card["text"] = b["content"];
             card["updates"] = card["updates"].get<int>() + 1;
             answer(res, {{"code", 0}, {"msg", "success"},
                          {"data", json::object()}});
           }));
  rest.Patch(R"(/open-apis/cardkit/v1/cards/([^/]+)/settings)",
             on_card([refuse, in_order](const httplib::Request&,
                                        httplib::Response& res, json& card,
                                        const json& b) {
               auto settings =
                 b.is_object() && b["settings"].is_string()
                   ? json::parse(b["settings"].get<std::string>(), nullptr,
                                 false)
                   : json{};
               if (!settings.is_object() || !settings["config"].is_object())
                 return refuse(res, card, "settings");
               if (!in_order(res, card, b))
                 return;
               if (settings["config"].contains("streaming_mode"))
                 card["streaming"] =
                   settings["config"]["streaming_mode"].get<bool>();
               answer(res, {{"code", 0}, {"msg", "success"},
                            {"data", json::object()}});
             }));
}

std::vector<json> fake_feishu::cards() const {
  std::lock_guard<std::mutex> g{impl_->mx};
  std::vector<json> out;
  for (const auto& id : impl_->card_order)
    out.push_back(impl_->cards.at(id));
  return out;
}

void fake_feishu::close_streaming(const std::string& card_id) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->cards.at(card_id)["streaming"] = false;
}

void fake_feishu::refuse_cards(bool on) {
  std::lock_guard<std::mutex> g{impl_->mx};
  impl_->refuse_cards = on;
}

} // namespace nb::test
