// Markdown as models write it, rendered to the small HTML subset chat
// platforms accept (Telegram's parse_mode "HTML", Matrix formatted_body):
// b, i, s, code, pre, a.
#pragma once

#include <string>

namespace nb::chan {

/// Renders `md`: fenced and inline code, **bold**/__bold__, *italic*/
/// _italic_, ~~strike~~, [links](url), headings (bold), "- " bullets (•);
/// everything else is escaped text. Never produces unbalanced tags.
std::string markdown_to_html(const std::string& md);

/// Escapes &, < and > for HTML text.
std::string escape_html(const std::string& s);

} // namespace nb::chan
