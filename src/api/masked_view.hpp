// The masked view of an API answer (SPEC §7, A31): what the console shows. A request with
// `X-Hookd-Mask: 1` gets its JSON answer with personal data masked and secrets redacted —
// payloads with the configured pointers (relative to each payload) and the built-in patterns,
// attempt responses as JSON text or text, every other string by its key (secret-looking keys
// redacted) and the patterns. Without the header the Svix-compatible API answers unmasked
// (SDK compatibility; docs/api.md). Ids survive (digit runs glued to letters are left alone).
// Thread-safety: pure functions over an immutable Masker.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "net/http_types.hpp"
#include "ops/masking.hpp"

namespace hookd::api {

inline constexpr std::string_view kMaskHeader = "X-Hookd-Mask";

// True when the request asks for the masked view ("1" or "true").
bool wants_masked_view(const net::HttpRequest& request);

void mask_view_in_place(const ops::Masker& masker, nlohmann::json& document);

// The response with a JSON body masked (re-serialised); other bodies unchanged.
net::HttpResponse masked_response(const ops::Masker& masker, net::HttpResponse response);

}  // namespace hookd::api
