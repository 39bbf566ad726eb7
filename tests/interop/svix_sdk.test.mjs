// A37: the official Svix JavaScript SDK (npm `svix` 1.x) against a real `hookd serve`:
// create an application, an endpoint (a local receiver), a message; read the attempts; verify
// the delivered request with the SDK's own Webhook verifier.
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd.
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readyHookdPort, waitFor } from './hookd_daemon.mjs';

import { Svix, Webhook } from 'svix';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const TOKEN = 'interop_svix_sdk_token';
const dir = mkdtempSync(join(tmpdir(), 'hookd-svix-'));

// A receiver that records every request with its raw body.
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end('ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

writeFileSync(join(dir, 'hookd.toml'), [
  '[delivery]', 'poll_interval = "100ms"', '[ssrf]', 'allowed_subnets = ["127.0.0.0/8"]', '',
].join('\n'));
const portFile = join(dir, 'port');
const daemon = spawn(HOOKD, ['serve', '--config', join(dir, 'hookd.toml'), '--database',
  join(dir, 'hookd.db'), '--listen', '127.0.0.1:0', '--token', TOKEN, '--port-file', portFile],
{ stdio: ['ignore', 'ignore', 'inherit'] });

after(async () => {
  daemon.kill('SIGTERM');
  receiver.close();
  await sleep(200);
  if (daemon.exitCode === null) daemon.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const port = await readyHookdPort(portFile);
const serverUrl = `http://127.0.0.1:${port}`;

test('A37: the Svix SDK creates an app, an endpoint and a message, and reads the attempts',
  async () => {
    const svix = new Svix(TOKEN, { serverUrl });
    const app = await svix.application.create({ name: 'svix-sdk', uid: 'svix-sdk-app' });
    assert.match(app.id, /^app_/);
    const endpoint = await svix.endpoint.create(app.id, { url: receiverUrl, description: 'r' });
    assert.match(endpoint.id, /^ep_/);
    const { key } = await svix.endpoint.getSecret(app.id, endpoint.id);
    assert.match(key, /^whsec_/);
    const message = await svix.message.create(app.id, {
      eventType: 'invoice.paid', payload: { amount: 4200, text: 'héllo' }, tags: ['customer_7'],
    });
    assert.match(message.id, /^msg_/);
    assert.deepEqual(message.tags, ['customer_7']);
    const tagged = await svix.message.list(app.id, { tag: 'customer_7' });
    assert.deepEqual(tagged.data.map((m) => m.id), [message.id]);
    const untagged = await svix.message.list(app.id, { tag: 'nobody' });
    assert.equal(untagged.data.length, 0);

    const delivered = await waitFor(() => received.find(
      (r) => r['headers']['webhook-id'] === message.id), 'the delivery');
    const verified = new Webhook(key).verify(delivered.body, delivered.headers);
    assert.equal(verified.amount, 4200);

    const attempts = await waitFor(async () => {
      const page = await svix.messageAttempt.listByMsg(app.id, message.id);
      return page.data.length > 0 && page;
    }, 'the attempt list');
    assert.equal(attempts.data[0].responseStatusCode, 200);
    assert.equal(attempts.data[0].msgId, message.id);

    // Resend: the SDK parses the answer, so it must be JSON (`{}` as Svix sends); an empty body
    // made it throw although the resend had happened, and a caller retrying sent twice.
    await svix.messageAttempt.resend(app.id, message.id, endpoint.id);
    await waitFor(() => received.filter((r) => r['headers']['webhook-id'] === message.id)
      .length >= 2 && true, 'the resent delivery');
  });
