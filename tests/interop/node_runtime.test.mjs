// The Node.js the interop tests run on: its version (printed, for CI logs: `ctest -V -L
// interop`), the supported range, and the global Web Crypto the npm libraries need, which
// web_crypto_shim.mjs provides on Node 18 (Debian 12) and Node >= 19 has itself.
import './web_crypto_shim.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';

const [major, minor] = process.versions.node.split('.').map(Number);
console.log(`interop tests on Node ${process.version} (${process.execPath}), ` +
  `OpenSSL ${process.versions.openssl}`);

test('Node is 18.19 or newer (package.json engines)', () => {
  assert.ok(major > 18 || (major === 18 && minor >= 19),
    `Node ${process.version} is older than 18.19`);
});

test('globalThis.crypto is Web Crypto after the shim (the Svix SDK calls crypto.randomUUID)', async () => {
  assert.equal(typeof globalThis.crypto?.randomUUID, 'function');
  assert.match(crypto.randomUUID(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode('abc'));
  assert.equal(Buffer.from(digest).toString('hex'),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  if (major < 19) assert.equal(globalThis.crypto, webcrypto);
});
