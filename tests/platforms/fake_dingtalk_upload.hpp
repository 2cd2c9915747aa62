// The scripted DingTalk's media upload (POST /media/upload of the older
// API, oapi.dingtalk.com): multipart field "media", the token in the
// query, answered with a media_id as DingTalk does.
#pragma once

#include <functional>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace nb::test {

/// Adds the route to `rest`. `token_ok` says whether an access token is
/// valid; `record` keeps an accepted upload ({"type", "file_name",
/// "bytes", "media_id", and for a ZIP archive "zip_entry": its first
/// entry's {"name", "method", "content", "crc_ok"}}) and returns how many
/// are kept.
void add_dingtalk_upload_route(httplib::Server& rest,
                               std::function<bool(const std::string&)> token_ok,
                               std::function<size_t(nlohmann::json)> record);

} // namespace nb::test
