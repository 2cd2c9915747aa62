#include "actors/evaluator/decision.hpp"

#include <nlohmann/json.hpp>

namespace nb {

namespace {

using json = nlohmann::json;

eval_verdict fallback(bool default_notify, std::string why) {
  eval_verdict v;
  v.should_notify = default_notify;
  v.reason = std::move(why);
  v.decided_by_model = false;
  return v;
}

/// Tool calls only count when the reply ended normally: a call cut off by
/// max_tokens or a content filter is not a decision.
bool tools_allowed(const std::string& finish_reason) {
  return finish_reason == "tool_calls" || finish_reason == "stop"
         || finish_reason == "function_call";
}

} // namespace

std::string evaluate_tool_json() {
  json params{
    {"type", "object"},
    {"properties",
     {{"should_notify",
       {{"type", "boolean"},
        {"description", "true: the answer carries something the user should "
                        "see now; false: routine or empty, safe to hold "
                        "back"}}},
      {"reason",
       {{"type", "string"},
        {"description", "The reason for the decision, in one sentence"}}}}},
    {"required", json::array({"should_notify"})}};
  json tool{{"type", "function"},
            {"function",
             {{"name", evaluate_tool_name},
              {"description", "Decide whether the user should be notified "
                              "about this background task result."},
              {"parameters", params}}}};
  return json::array({tool}).dump();
}

std::string evaluation_user_text(const std::string& task_context,
                                 const std::string& response) {
  return "## Original task\n" + task_context + "\n\n## Agent response\n"
         + response;
}

model_request make_evaluation_request(const eval_request& rq,
                                      const std::string& prompt,
                                      const std::string& model) {
  model_request out;
  out.request_id = "evaluator:" + rq.source;
  out.model = model;
  json msgs = json::array(
    {json{{"role", "system"}, {"content", prompt}},
     json{{"role", "user"},
          {"content", evaluation_user_text(rq.task_context, rq.response)}}});
  out.messages_json = msgs.dump(-1, ' ', false, json::error_handler_t::replace);
  out.tools_json = evaluate_tool_json();
  out.max_tokens = evaluator_max_tokens;
  out.temperature = 0.0;
  out.stream = false;
  return out;
}

eval_verdict decide(const model_reply& reply, bool default_notify) {
  if (reply.finish_reason == "error")
    return fallback(default_notify, "the model call failed: " + reply.error);
  if (reply.tool_calls.empty())
    return fallback(default_notify, "the model answered without calling "
                                      + std::string{evaluate_tool_name});
  if (!tools_allowed(reply.finish_reason))
    return fallback(default_notify, "the tool call came with finish reason '"
                                      + reply.finish_reason + "'");
  const auto& call = reply.tool_calls.front();
  json args = json::parse(call.arguments_json, nullptr, false);
  if (args.is_string()) // some models double-encode the arguments
    args = json::parse(args.get<std::string>(), nullptr, false);
  if (!args.is_object())
    return fallback(default_notify, "the tool arguments are not a JSON object");
  eval_verdict v;
  v.decided_by_model = true;
  if (auto r = args.find("reason"); r != args.end() && r->is_string())
    v.reason = r->get<std::string>();
  auto n = args.find("should_notify");
  if (n == args.end())
    return fallback(default_notify, "should_notify is missing");
  if (n->is_boolean()) {
    v.should_notify = n->get<bool>();
  } else if (n->is_string() && (*n == "true" || *n == "false")) {
    v.should_notify = *n == "true";
  } else {
    return fallback(default_notify, "should_notify is not a boolean");
  }
  return v;
}

} // namespace nb
