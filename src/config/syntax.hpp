// Syntax checks for config values that are small languages of their own: JSON pointers,
// CIDR subnets, URLs, listen addresses, header names, templates, base64 secrets.
// Each returns nothing when the text is fine, or a message saying what is wrong and what is
// allowed. Messages quote the checked text, so never pass secret values to the quoting ones
// (check_base64 and check_database_url never quote). Pure functions.
#pragma once

#include <expected>
#include <string>
#include <string_view>

namespace hookd::config {

using Check = std::expected<void, std::string>;

Check check_json_pointer(std::string_view text);    // RFC 6901, non-empty: "/a/b~1c"
Check check_cidr(std::string_view text);            // "10.0.0.0/8", "fd00::/8"
Check check_http_url(std::string_view text);        // http:// or https:// with a host
Check check_database_url(std::string_view text);    // path, ":memory:" or postgres(ql)://
Check check_listen_address(std::string_view text);  // "host:port", "[::1]:port"
Check check_header_name(std::string_view text);     // RFC 9110 token
Check check_url_path(std::string_view text);        // "/metrics"
// "prefix:{/json/pointer}..." with at least one placeholder.
Check check_business_key_template(std::string_view text);
// Signed-content template: literal text plus {id}, {timestamp}, {body}; {body} required.
Check check_hmac_template(std::string_view text);
// Base64 (standard or URL alphabet, padding optional) decoding to expected_bytes if > 0.
Check check_base64(std::string_view text, std::size_t expected_bytes = 0);
// Path-safe name: 1-64 of [a-z0-9_-], starting with a letter or digit.
Check check_name(std::string_view text);
// A proxy's upstream: http(s)://host[:port][/base/path], without query, fragment or user info
// (a message never quotes a URL with user info: it may hold a password).
Check check_upstream_url(std::string_view text);
// An http(s) URL with a {key} placeholder in its path or query: "http://h/ops/{key}".
Check check_key_url_template(std::string_view text);
// The same with another placeholder: check_url_template(url, "{entity}",
// "http://provider/contracts/{entity}").
Check check_url_template(std::string_view text, std::string_view placeholder,
                         std::string_view example);
// An http(s) URL without user info (user:password@): a message never quotes one with it.
Check check_http_url_without_user_info(std::string_view text);
// An HTTP method as hookd compares it: an RFC 9110 token without lower-case letters ("POST").
Check check_method(std::string_view text);

// `text` between double quotes, for messages (no escaping).
std::string quoted(std::string_view text);

}  // namespace hookd::config
