// The idempotency gateway (`[[proxy]]`, docs/proxy.md) with a real client: the npm `stripe`
// library, which keys every POST with an Idempotency-Key of its own and retries with it
// (timeouts, 409, 5xx), pointed at a running `hookd serve` in front of a fake Stripe API whose
// first answer comes after the client's timeout. Through hookd: one customer, the retries
// answered by hookd (409 while the first call is out, then the replay). Straight at the fake
// API (the control): the same client creates duplicates, so the scenario does provoke them.
// And when stripe-node runs out of retries on hookd's 409, the app sees an error.
// Nothing here depends on the machine's speed: the fake API holds its first answer until the
// test releases it (so the client's first try always times out), and only that first try has
// the short timeout; the retries get a long one, so a loaded machine slows hookd's 409 but
// cannot turn it into a timeout (CI once saw that with a 500 ms timeout on every try).
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd.
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, Agent } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readyHookdPort } from './hookd_daemon.mjs';

import Stripe from 'stripe';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const FIRST_TRY_TIMEOUT_MS = 500; // the first try of each client: its answer is held, it times out
const RETRY_TIMEOUT_MS = 20000; // every later try: hookd answers it, however loaded the machine
const MAX_RETRIES = 5; // stripe's retries come after 0.5 s, 0.5–1 s, 1–2 s, ...
const dir = mkdtempSync(join(tmpdir(), 'hookd-proxy-stripe-'));

// A fake Stripe API: POST /v1/customers (form-encoded, as stripe-node sends) creates
// cus_<n> per call; the first call's answer is held until api.release(). Counts every call.
function fakeStripeApi() {
  const api = { calls: [], customers: [] };
  api.held = new Promise((resolve) => { api.release = resolve; });
  api.server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      api.calls.push({ method: req.method, path: req.url, headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/customers') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'no such route' } }));
        return;
      }
      const customer = {
        id: `cus_${api.customers.length + 1}`, object: 'customer',
        created: Math.floor(Date.now() / 1000), livemode: false,
        email: new URLSearchParams(body).get('email'), metadata: {},
      };
      api.customers.push(customer); // created now, answered (maybe) later
      if (api.customers.length === 1) await api.held;
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${api.calls.length}` });
      res.end(JSON.stringify(customer));
    });
  });
  return new Promise((resolve) => api.server.listen(0, '127.0.0.1', () => {
    api.port = api.server.address().port;
    resolve(api);
  }));
}

// stripe-node has no path-prefix option (its config keys are host, port and protocol; the
// /v1 base path is fixed), so the client is given an httpClient (a documented option) that
// delegates to stripe's own Node client with `prefix` in front of each path. The first try
// gets stripe's configured timeout, later ones RETRY_TIMEOUT_MS. `onAttempt` sees every
// attempt's outcome (recorded in `attempts`, to show how the retries went).
function prefixedClient(prefix, agent, attempts, onAttempt) {
  const inner = Stripe.createNodeHttpClient(agent);
  const client = Object.create(inner);
  let tries = 0;
  const record = (outcome) => {
    attempts.push(outcome);
    onAttempt(outcome);
  };
  client.makeRequest = (host, port, path, method, headers, body, protocol, timeout) =>
    inner.makeRequest(host, port, prefix + path, method, headers, body, protocol,
      tries++ === 0 ? timeout : RETRY_TIMEOUT_MS).then(
      (res) => {
        record({ status: res.getStatusCode(), replayed: res.getHeaders()['idempotent-replayed'],
          retryAfter: res.getHeaders()['retry-after'] });
        return res;
      },
      (error) => {
        record({ error: error.code || error.type || String(error) });
        throw error;
      });
  return client;
}

function stripeClient(port, prefix, agent, attempts,
  { maxNetworkRetries = MAX_RETRIES, onAttempt = () => {} } = {}) {
  return new Stripe('sk_test_x', {
    host: '127.0.0.1', port, protocol: 'http', timeout: FIRST_TRY_TIMEOUT_MS,
    maxNetworkRetries, telemetry: false,
    httpClient: prefixedClient(prefix, agent, attempts, onAttempt),
  });
}

const agent = new Agent({ keepAlive: true });
const api = await fakeStripeApi();
const slowApi = await fakeStripeApi(); // held until after stripe-node's one retry
writeFileSync(join(dir, 'hookd.toml'), [
  '[[proxy]]', 'name = "stripe"', `upstream = "http://127.0.0.1:${api.port}"`, 'timeout = "10s"', '',
  '[[proxy]]', 'name = "stripe-slow"', `upstream = "http://127.0.0.1:${slowApi.port}"`, 'timeout = "10s"', '',
].join('\n'));
const portFile = join(dir, 'port');
const daemon = spawn(HOOKD, ['serve', '--config', join(dir, 'hookd.toml'), '--database',
  join(dir, 'hookd.db'), '--listen', '127.0.0.1:0', '--token', 'interop_proxy_token',
  '--port-file', portFile], { stdio: ['ignore', 'ignore', 'inherit'] });

after(async () => {
  api.release();
  slowApi.release();
  daemon.kill('SIGTERM');
  agent.destroy();
  api.server.close();
  slowApi.server.close();
  await sleep(200);
  if (daemon.exitCode === null) daemon.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const port = await readyHookdPort(portFile);

test('stripe customers.create through hookd: the first try times out, one customer is created', async (t) => {
  const attempts = [];
  // The upstream's first answer is released once hookd has answered a retry with 409.
  const stripe = stripeClient(port, '/proxy/stripe', agent, attempts,
    { onAttempt: (outcome) => { if (outcome.status === 409) api.release(); } });
  const customer = await stripe.customers.create({ email: 'jenny@example.com' });
  t.diagnostic(`attempts: ${JSON.stringify(attempts)}`);

  assert.equal(customer.id, 'cus_1', JSON.stringify(attempts));
  assert.equal(customer.object, 'customer');
  assert.equal(customer.email, 'jenny@example.com');
  assert.equal(api.customers.length, 1, `the upstream created ${api.customers.length} customers`);
  assert.equal(api.calls.length, 1);
  const key = api.calls[0].headers['idempotency-key'];
  assert.match(key ?? '', /^stripe-node-retry-[0-9a-f-]{36}$/, "stripe-node's own key reaches the upstream");
  assert.equal(api.calls[0].headers['content-type'], 'application/x-www-form-urlencoded');
  assert.equal(api.calls[0].body, 'email=jenny%40example.com');

  // How it went: the first try timed out, retries got 409 (in progress, with Retry-After)
  // while the upstream was still creating, then hookd's replay of the recorded answer.
  assert.equal(attempts[0].error, 'ETIMEDOUT', JSON.stringify(attempts));
  const last = attempts.at(-1);
  assert.deepEqual([last.status, last.replayed], [200, 'true'], JSON.stringify(attempts));
  for (const between of attempts.slice(1, -1)) {
    assert.equal(between.status, 409, JSON.stringify(attempts));
    assert.ok(between.retryAfter, JSON.stringify(attempts));
  }

  // The same key much later (stripe's idempotencyKey option) still replays, never re-sent.
  const again = await stripe.customers.create({ email: 'jenny@example.com' }, { idempotencyKey: key });
  assert.equal(again.id, 'cus_1');
  assert.equal(api.customers.length, 1);
});

test('control: the same client straight at the fake API creates duplicates', async (t) => {
  api.calls.length = 0;
  api.customers.length = 0;
  const attempts = [];
  api.held = new Promise((resolve) => { api.release = resolve; });
  const stripe = stripeClient(api.port, '', agent, attempts);
  const customer = await stripe.customers.create({ email: 'jenny@example.com' });
  t.diagnostic(`attempts: ${JSON.stringify(attempts)}, customers: ${api.customers.length}`);
  assert.equal(attempts[0].error, 'ETIMEDOUT', JSON.stringify(attempts));
  assert.ok(api.customers.length >= 2, `the fake API created ${api.customers.length} customers`);
  assert.notEqual(customer.id, 'cus_1', 'the retry created another customer');
  // Every call carried the same key: the retries are what a keyed upstream would dedupe.
  assert.equal(new Set(api.calls.map((c) => c.headers['idempotency-key'])).size, 1);
});

// stripe-node tells an error from a success by the body's `error` member, not the status: the
// gateway's problem documents carry Stripe's {"error": {"type": "idempotency_error", ...}}
// beside type/title/status/detail, so when its retries run out on a 409 the app gets a
// StripeError, not the problem document as if it were the customer.
test("stripe-node out of retries on hookd's 409: the app sees an error", async (t) => {
  const attempts = [];
  const stripe = stripeClient(port, '/proxy/stripe-slow', agent, attempts, { maxNetworkRetries: 1 });
  const outcome = await stripe.customers.create({ email: 'slow@example.com' }).then(
    (value) => ({ resolved: value }), (error) => ({ rejected: error }));
  slowApi.release();
  t.diagnostic(`attempts: ${JSON.stringify(attempts)}; ${outcome.resolved
    ? `resolved with ${JSON.stringify(outcome.resolved)}` : `rejected: ${outcome.rejected.message}`}`);
  assert.deepEqual(attempts.map((a) => a.error ?? a.status), ['ETIMEDOUT', 409]);
  assert.ok(outcome.rejected, 'stripe-node resolved with the 409 problem document');
  assert.equal(outcome.rejected.statusCode, 409);
  assert.equal(outcome.rejected.rawType, 'idempotency_error'); // a 409 is a StripeAPIError by class
});
