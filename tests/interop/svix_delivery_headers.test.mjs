// Issue 17 items 3 and 4 with the libraries Svix integrations use, against a real
// `hookd serve`: a delivery's svix-* headers alone verify with the `svix` SDK's
// Webhook.verify, its webhook-* headers alone with `standardwebhooks`; an endpoint's
// headerNaming ("svix" / "webhook") sends one family only; the SDK's endpoint.create with
// throttleRate is answered (create, get, patch) with throttleRate and rateLimit.
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd. Checked: both tests fail
// with the binary from before this change (one header family, throttleRate dropped).
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { startHookd, waitFor } from './hookd_daemon.mjs';

import { Svix, Webhook as SvixWebhook } from 'svix';
import { Webhook as StandardWebhook } from 'standardwebhooks';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const TOKEN = 'interop_svix_headers_token';

// A receiver that records every request with its path and raw body.
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    received.push({ path: req.url, headers: req.headers, body });
    res.writeHead(200).end('ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = (path) => `http://127.0.0.1:${receiver.address().port}${path}`;

const hookd = await startHookd(HOOKD, { token: TOKEN, configLines: [
  '[delivery]', 'poll_interval = "100ms"', '[ssrf]', 'allowed_subnets = ["127.0.0.0/8"]'] });
after(async () => {
  receiver.close();
  await hookd.stop();
});
const { serverUrl } = hookd;
const svix = new Svix(TOKEN, { serverUrl });

// The headers of one family only: names starting with `prefix`.
function family(headers, prefix) {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith(prefix)));
}

// PATCH an endpoint with hookd's own field (the SDK's serializers drop unknown fields).
async function patchEndpoint(appId, endpointId, body) {
  const res = await fetch(`${serverUrl}/api/v1/app/${appId}/endpoint/${endpointId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

async function deliveryTo(path, msgId) {
  return waitFor(() => received.find((r) => r.path === path &&
    (r.headers['webhook-id'] ?? r.headers['svix-id']) === msgId), `the delivery to ${path}`);
}

test('a real delivery: svix-* headers verify with the svix SDK, webhook-* with standardwebhooks',
  async () => {
    const app = await svix.application.create({ name: 'headers', uid: 'headers-app' });
    const both = await svix.endpoint.create(app.id, { url: receiverUrl('/both') });
    const svixOnly = await svix.endpoint.create(app.id, { url: receiverUrl('/svix') });
    const webhookOnly = await svix.endpoint.create(app.id, { url: receiverUrl('/webhook') });
    assert.equal((await patchEndpoint(app.id, svixOnly.id, { headerNaming: 'svix' })).headerNaming,
      'svix');
    assert.equal((await patchEndpoint(app.id, webhookOnly.id, { headerNaming: 'webhook' }))
      .headerNaming, 'webhook');
    const secret = async (ep) => (await svix.endpoint.getSecret(app.id, ep.id)).key;
    const message = await svix.message.create(app.id, {
      eventType: 'invoice.paid', payload: { amount: 4200, text: 'héllo' },
    });

    // Default: both families, the same values; each family alone verifies with its library.
    const d = await deliveryTo('/both', message.id);
    assert.equal(d.headers['svix-id'], message.id);
    assert.equal(d.headers['svix-timestamp'], d.headers['webhook-timestamp']);
    assert.equal(d.headers['svix-signature'], d.headers['webhook-signature']);
    const key = await secret(both);
    const svixHeaders = family(d.headers, 'svix-');
    assert.deepEqual(Object.keys(svixHeaders).sort(),
      ['svix-id', 'svix-signature', 'svix-timestamp']);
    assert.equal(new SvixWebhook(key).verify(d.body, svixHeaders).amount, 4200);
    assert.throws(() => new SvixWebhook(key).verify(d.body.replace('4200', '4201'), svixHeaders));
    const webhookHeaders = family(d.headers, 'webhook-');
    assert.equal(new StandardWebhook(key).verify(d.body, webhookHeaders).amount, 4200);
    // standardwebhooks reads only webhook-*: the svix-* family alone is not enough for it.
    assert.throws(() => new StandardWebhook(key).verify(d.body, svixHeaders));

    // headerNaming "svix": no webhook-* at all, and the svix SDK verifies.
    const s = await deliveryTo('/svix', message.id);
    assert.deepEqual(Object.keys(family(s.headers, 'webhook-')), []);
    assert.equal(new SvixWebhook(await secret(svixOnly)).verify(s.body, s.headers).amount, 4200);

    // headerNaming "webhook": no svix-* at all, and standardwebhooks verifies.
    const w = await deliveryTo('/webhook', message.id);
    assert.deepEqual(Object.keys(family(w.headers, 'svix-')), []);
    assert.equal(new StandardWebhook(await secret(webhookOnly)).verify(w.body, w.headers).amount,
      4200);
  });

test('the SDK sets throttleRate; hookd answers throttleRate and rateLimit', async () => {
  const app = await svix.application.create({ name: 'throttle', uid: 'throttle-app' });
  const created = await svix.endpoint.create(app.id, { url: receiverUrl('/t'), throttleRate: 5 });
  assert.equal(created.throttleRate, 5);
  assert.equal(created.rateLimit, 5);
  const got = await svix.endpoint.get(app.id, created.id);
  assert.equal(got.throttleRate, 5);
  assert.equal(got.rateLimit, 5);
  const patched = await svix.endpoint.patch(app.id, created.id, { throttleRate: 8 });
  assert.equal(patched.throttleRate, 8);
  assert.equal(patched.rateLimit, 8);
  const legacy = await svix.endpoint.create(app.id, { url: receiverUrl('/l'), rateLimit: 3 });
  assert.equal((await svix.endpoint.get(app.id, legacy.id)).throttleRate, 3);
});
