// The SSRF guard of the outbound HTTP client built from the core AddressPolicy: turns each
// address libcurl is about to connect to (a sockaddr) into an IpAddress and asks the policy.
// Addresses of another family (e.g. AF_UNIX) are refused.
// Thread-safety: the returned guard only reads its own copy of the policy; safe anywhere.
#pragma once

#include "core/address_policy.hpp"
#include "net/http_client_types.hpp"

namespace hookd::net {

AddressGuard make_address_guard(AddressPolicy policy);

}  // namespace hookd::net
