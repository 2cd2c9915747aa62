// Tools: HTML turned into readable text for web_fetch. Scripts, styles and
// other non-content elements are dropped, block elements become line
// breaks, links and headings keep a light markdown shape.
#pragma once

#include <string>
#include <string_view>

namespace nb {

/// The page's <title> text, entities decoded ("" when none).
std::string html_title(std::string_view html);

/// Readable text of `html`. `markdown`: headings as "#", links as
/// [text](href), list items as "- "; otherwise plain text.
std::string html_to_text(std::string_view html, bool markdown);

/// Decodes HTML character references (&amp; &#39; &#x41; ...).
std::string decode_entities(std::string_view s);

} // namespace nb
