// Reading EndpointIn / EndpointUpdate / EndpointPatch bodies (Svix fields, `throttleRate` and
// its deprecated alias `rateLimit` both, plus hookd's fifo, retryPolicy, connectTimeoutMs,
// timeoutMs, headerNaming) into a store::Endpoint, collecting field errors.
// URL checks (scheme, host, literal IPs refused by the SSRF address policy) live here too.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "api/json_body.hpp"
#include "core/address_policy.hpp"
#include "store/model.hpp"

namespace hookd::api {

enum class EndpointBody { kCreate, kUpdate, kPatch };

// Reads the fields of `f` into `ep`. kPatch leaves absent fields unchanged; kUpdate ignores
// `secret` (Svix rotates secrets through its own route). The secret read on create is
// returned (normalised to whsec_..., or a whsk_... Ed25519 key as given) and not stored
// in `ep`.
std::optional<std::string> read_endpoint(Fields& f, store::Endpoint& ep, EndpointBody kind,
                                         const AddressPolicy& policy);

// Why `url` cannot be an endpoint URL, or nullopt when it can.
std::optional<std::string> url_problem(const std::string& url, const AddressPolicy& policy);

// Why a custom header cannot be sent with deliveries (bad name, a header hookd sets itself,
// CR/LF in the value), or nullopt when it can.
std::optional<std::string> header_problem(const std::string& name, const std::string& value);
// Adds a FieldError "<field>.<name>" for each header with a problem (and for too many).
void check_headers(Fields& f, const std::string& field, const store::Headers& headers);

// Validates the retryPolicy object; returns its canonical JSON text.
std::optional<std::string> read_retry_policy(Fields& f);

}  // namespace hookd::api
