// The global Web Crypto object (`globalThis.crypto`) for Node 18, imported first by every
// interop test. Node 18 — Debian 12's `nodejs` package, the one scripts/install-deps.sh
// installs — has Web Crypto only as `require('node:crypto').webcrypto` (the global needs
// --experimental-global-webcrypto); Node >= 19 defines the global itself. The Svix SDK calls
// the global `crypto.randomUUID()` for its idempotency keys (ReferenceError on Node 18 without
// this), and stripe's platform functions do the same. A no-op where the global exists.
import { webcrypto } from 'node:crypto';

if (globalThis.crypto === undefined) {
  // The same shape as Node >= 19's own global: writable, configurable, not enumerable.
  Object.defineProperty(globalThis, 'crypto', {
    value: webcrypto, writable: true, configurable: true, enumerable: false,
  });
}
