// The inbound gateway with real npm sender libraries against a running `hookd serve`:
// standardwebhooks, stripe and @octokit/webhooks-methods sign requests to /in/<source>;
// the `cloudevents` library emits binary and structured mode events (identity = source + id
// across both modes) and reads the forwards back; the app verifies hookd's forward signature
// with standardwebhooks. Run by ctest (label interop) with HOOKD_BINARY set to build/hookd.
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readyHookdPort, waitFor } from './hookd_daemon.mjs';

import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import { CloudEvent, HTTP } from 'cloudevents';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const TOKEN = 'interop_inbound_token';
const SENDER_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const FORWARD_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const STRIPE_SECRET = 'whsec_test_stripe_endpoint_secret';
const GITHUB_SECRET = "It's a Secret to Everybody";
const SEED_SECRET = 'esign-shared-secret';
const CE_TOKEN = 'cloudevents-shared-token';
const dir = mkdtempSync(join(tmpdir(), 'hookd-inbound-'));

// The application: records every forward with its raw body, answers 200.
const received = [];
const app = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end('ok');
  });
});
await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
const appUrl = (path) => `http://127.0.0.1:${app.address().port}${path}`;

function source(name, lines, forwardLines = []) {
  return ['[[source]]', `name = "${name}"`, ...lines, '[source.forward]', `url = "${appUrl('/' + name)}"`,
    `secret = "${FORWARD_SECRET}"`, ...forwardLines, ''];
}

writeFileSync(join(dir, 'hookd.toml'), [
  '[delivery]', 'poll_interval = "100ms"', '',
  ...source('std', ['scheme = "standard"', `secrets = ["${SENDER_SECRET}"]`,
    'business_key = "order:{/order_id}"']),
  ...source('stripe', ['scheme = "stripe"', `secrets = ["${STRIPE_SECRET}"]`]),
  ...source('github', ['scheme = "github"', `secrets = ["${GITHUB_SECRET}"]`],
    ['headers = ["X-GitHub-Event"]']),
  ...source('esign', ['scheme = "hmac-hex-ts"', `secrets = ["${SEED_SECRET}"]`,
    'event_id = "/event_id"']),
  ...source('ce', ['scheme = "cloudevents"', `secrets = ["${CE_TOKEN}"]`,
    'allowed_origins = ["events.example.com"]']),
].join('\n'));
const portFile = join(dir, 'port');
const daemon = spawn(HOOKD, ['serve', '--config', join(dir, 'hookd.toml'), '--database',
  join(dir, 'hookd.db'), '--listen', '127.0.0.1:0', '--token', TOKEN, '--port-file', portFile],
{ stdio: ['ignore', 'ignore', 'inherit'] });

after(async () => {
  daemon.kill('SIGTERM');
  app.close();
  await sleep(200);
  if (daemon.exitCode === null) daemon.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const port = await readyHookdPort(portFile);
const base = `http://127.0.0.1:${port}`;

const post = (name, body, headers) => fetch(`${base}/in/${name}`, { method: 'POST', body, headers });
const forwardOf = (path, eventId) => waitFor(() => received.find(
  (r) => r.path === path && r.headers['x-hookd-event-id'] === eventId), `the forward of ${eventId}`);

function assertSignedByHookd(forward) {
  // The app verifies hookd's forward with the standardwebhooks library.
  new StandardWebhook(FORWARD_SECRET).verify(forward.body, forward.headers);
}

test('standardwebhooks sender: accepted, deduplicated, forwarded once with Idempotency-Key', async () => {
  const body = JSON.stringify({ type: 'order.paid', order_id: 'o-1' });
  const headers = new StandardWebhook(SENDER_SECRET).sign('msg_std_1', new Date(), body);
  const first = await post('std', body, {
    'content-type': 'application/json', 'webhook-id': 'msg_std_1',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': headers,
  });
  assert.equal(first.status, 200);
  assert.equal((await first.json()).duplicate, false);
  const forward = await forwardOf('/std', 'msg_std_1');
  assert.equal(forward.body, body);
  assert.equal(forward.headers['idempotency-key'], 'order:o-1');
  assertSignedByHookd(forward);
  const tampered = await post('std', body.replace('o-1', 'o-2'), {
    'content-type': 'application/json', 'webhook-id': 'msg_std_2',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': headers,
  });
  assert.equal(tampered.status, 401);
  assert.equal((await tampered.json()).reason, 'no_matching_signature');
});

test('stripe library signature (generateTestHeaderString) is verified; tampering is 401', async () => {
  const stripe = new Stripe('sk_test_not_used_for_webhooks');
  const body = JSON.stringify({ id: 'evt_stripe_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } });
  const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET });
  const ok = await post('stripe', body, { 'content-type': 'application/json', 'stripe-signature': signature });
  assert.equal(ok.status, 200);
  await forwardOf('/stripe', 'evt_stripe_1');
  const bad = await post('stripe', body.replace('pi_1', 'pi_2'), { 'content-type': 'application/json', 'stripe-signature': signature });
  assert.equal(bad.status, 401);
});

test('@octokit/webhooks-methods signature is verified; X-GitHub-Delivery is the event id', async () => {
  const body = JSON.stringify({ action: 'opened', repository: { full_name: 'o/r' } });
  const signature = await octokitSign(GITHUB_SECRET, body);
  const headers = { 'content-type': 'application/json', 'x-hub-signature-256': signature,
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'x-github-event': 'issues' };
  assert.equal((await post('github', body, headers)).status, 200);
  const again = await post('github', body, headers);
  assert.equal((await again.json()).duplicate, true);
  const forward = await forwardOf('/github', '72d3162e-cc78-11e3-81ab-4c9367dc0958');
  assert.equal(forward.headers['x-github-event'], 'issues');
  assertSignedByHookd(forward);
});

test("the seeds' hmac-hex-ts scheme (hex HMAC-SHA256 over {timestamp}.{body})", async () => {
  const body = JSON.stringify({ event_id: 'esign-1', data: { contract_id: 'c-1' } });
  const ts = String(Math.floor(Date.now() / 1000));
  const sig = createHmac('sha256', SEED_SECRET).update(`${ts}.${body}`).digest('hex');
  const ok = await post('esign', body, { 'content-type': 'application/json', 'x-timestamp': ts, 'x-signature': sig });
  assert.equal(ok.status, 200);
  await forwardOf('/esign', 'esign-1');
  const old = String(Math.floor(Date.now() / 1000) - 600);
  const oldSig = createHmac('sha256', SEED_SECRET).update(`${old}.${body}`).digest('hex');
  const stale = await post('esign', body, { 'content-type': 'application/json', 'x-timestamp': old, 'x-signature': oldSig });
  assert.equal(stale.status, 401);
  assert.equal((await stale.json()).reason, 'timestamp_too_old');
});

test('cloudevents library: binary and structured mode, identity = source + id, forwards readable', async () => {
  const auth = { authorization: `Bearer ${CE_TOKEN}` };
  const binaryEvent = new CloudEvent({ type: 'order.paid', source: '/orders', id: 'ce-1', data: { order_id: 'o-7' } });
  const binary = HTTP.binary(binaryEvent);
  const r1 = await post('ce', binary.body, { ...binary.headers, ...auth });
  assert.equal(r1.status, 200);
  assert.equal((await r1.json()).duplicate, false);
  // The same source + id in structured mode is the same event.
  const structured = HTTP.structured(binaryEvent);
  const r2 = await post('ce', structured.body, { ...structured.headers, ...auth });
  assert.equal(r2.status, 200);
  assert.equal((await r2.json()).duplicate, true);
  // Another id in structured mode is a new event.
  const other = HTTP.structured(new CloudEvent({ type: 'order.paid', source: '/orders', id: 'ce-2', data: { order_id: 'o-8' } }));
  const r3 = await post('ce', other.body, { ...other.headers, ...auth });
  assert.equal((await r3.json()).duplicate, false);
  // Without the token: 401.
  const noToken = await post('ce', binary.body, binary.headers);
  assert.equal(noToken.status, 401);

  // The forwards are CloudEvents again for the app (binary keeps ce-*, structured its envelope).
  const f1 = await forwardOf('/ce', '/orders|ce-1');
  const e1 = HTTP.toEvent({ headers: f1.headers, body: f1.body });
  assert.equal(e1.id, 'ce-1');
  assert.equal(e1.source, '/orders');
  assert.deepEqual(e1.data, { order_id: 'o-7' });
  const f2 = await forwardOf('/ce', '/orders|ce-2');
  const e2 = HTTP.toEvent({ headers: f2.headers, body: f2.body });
  assert.equal(e2.id, 'ce-2');
  assertSignedByHookd(f2);
  await sleep(300);
  assert.equal(received.filter((r) => r.path === '/ce').length, 2);
});

test('CloudEvents webhook validation handshake (OPTIONS)', async () => {
  const ok = await fetch(`${base}/in/ce`, { method: 'OPTIONS', headers: { 'WebHook-Request-Origin': 'events.example.com' } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('webhook-allowed-origin'), 'events.example.com');
  const no = await fetch(`${base}/in/ce`, { method: 'OPTIONS', headers: { 'WebHook-Request-Origin': 'evil.example.com' } });
  assert.equal(no.status, 403);
});

test('inbound metrics count by source and outcome', async () => {
  const text = await (await fetch(`${base}/metrics`)).text();
  assert.match(text, /hookd_inbound_requests_total\{source="github",outcome="duplicate"\} 1/);
  assert.match(text, /hookd_inbound_requests_total\{source="esign",outcome="rejected_timestamp_too_old"\} 1/);
});
