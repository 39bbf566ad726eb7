// What the interop tests that run the real daemon share: a bounded poll, and waiting for a
// `hookd serve --port-file F` to write its port and answer /readyz.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// Polls `check` every 50 ms until it returns something truthy (returned), failing after `ms`.
export async function waitFor(check, what, ms = 20000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(50);
  }
}

// The port hookd wrote to `portFile`, once it is ready (GET /readyz answers 200).
export async function readyHookdPort(portFile) {
  const port = await waitFor(() => existsSync(portFile) && Number(readFileSync(portFile, 'utf8')),
    'the port file');
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)
    .catch(() => ({ ok: false }))).ok, 'ready');
  return port;
}
