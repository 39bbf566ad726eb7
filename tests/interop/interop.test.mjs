// hookd sign/verify against widely used webhook libraries, both directions (A15):
//   hookd sign  -> standardwebhooks / svix / stripe / @octokit/webhooks-methods verify
//   library sign -> hookd verify --now <ts>
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd.
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import Stripe from 'stripe';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');

const STANDARD_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_STANDARD_SECRET = 'whsec_dGhlIG90aGVyIHNlY3JldCwgMzIgYnl0ZXMgbG9uZyE=';
const STRIPE_SECRET = 'whsec_test_stripe_endpoint_secret';
const GITHUB_SECRET = "It's a Secret to Everybody";
const BODY = JSON.stringify({ type: 'invoice.paid', text: 'héllo ✓ "quoted"', amount: 4200 });
const TAMPERED = BODY.replace('4200', '4201');
const stripe = new Stripe('sk_test_not_used_for_webhooks');
const scratch = mkdtempSync(join(tmpdir(), 'hookd-interop-'));

function nowSeconds() {
  return Math.floor(Date.now() / 1000);
}

function hookd(args, input) {
  const result = spawnSync(HOOKD, args, { input, encoding: 'utf8' });
  assert.equal(result.error, undefined, `cannot run ${HOOKD}: ${result.error}`);
  return result;
}

// `hookd sign` -> { header-name-lowercased: value }.
function hookdSign(flags, body, { id = 'msg_interop1', timestamp = nowSeconds() } = {}) {
  const result = hookd(
    ['sign', ...flags, '--id', id, '--timestamp', String(timestamp), '--body-file', '-'],
    body,
  );
  assert.equal(result.status, 0, result.stderr);
  const headers = {};
  for (const line of result.stdout.trimEnd().split('\n')) {
    const colon = line.indexOf(': ');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 2);
  }
  return headers;
}

// `hookd verify` on a captured request; returns { status, stderr }.
function hookdVerify(flags, headers, body, now) {
  const file = join(scratch, `req-${process.hrtime.bigint()}.json`);
  writeFileSync(file, JSON.stringify({ headers, body }));
  const result = hookd(['verify', ...flags, '--now', String(now), '--request-file', file]);
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

function assertHookdAccepts(flags, headers, body, now) {
  const result = hookdVerify(flags, headers, body, now);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout, 'ok\n');
}

function assertHookdRejects(flags, headers, body, now) {
  const result = hookdVerify(flags, headers, body, now);
  assert.equal(result.status, 1, `expected rejection, got ${result.status}: ${result.stderr}`);
  assert.match(result.stderr, /no_matching_signature/);
}

// ---------- hookd sign -> library verify ----------

test('hookd standard signature verifies with standardwebhooks', () => {
  const headers = hookdSign(['--scheme', 'standard', '--secret', STANDARD_SECRET], BODY);
  const verified = new StandardWebhook(STANDARD_SECRET).verify(BODY, headers);
  assert.equal(verified.amount, 4200);
  assert.throws(() => new StandardWebhook(STANDARD_SECRET).verify(TAMPERED, headers));
});

test('hookd standard signature verifies with svix (webhook-* headers)', () => {
  const headers = hookdSign(['--scheme', 'standard', '--secret', STANDARD_SECRET], BODY);
  assert.ok(headers['webhook-signature'], JSON.stringify(headers));
  assert.equal(new SvixWebhook(STANDARD_SECRET).verify(BODY, headers).amount, 4200);
  assert.throws(() => new SvixWebhook(STANDARD_SECRET).verify(TAMPERED, headers));
});

test('hookd svix signature verifies with svix (svix-* headers)', () => {
  const headers = hookdSign(['--scheme', 'svix', '--secret', STANDARD_SECRET], BODY);
  assert.deepEqual(Object.keys(headers).sort(), ['svix-id', 'svix-signature', 'svix-timestamp']);
  assert.equal(new SvixWebhook(STANDARD_SECRET).verify(BODY, headers).amount, 4200);
  assert.throws(() => new SvixWebhook(STANDARD_SECRET).verify(TAMPERED, headers));
});

test('hookd rotation signature (two secrets) verifies with either secret in svix', () => {
  const headers = hookdSign(
    ['--scheme', 'standard', '--secret', STANDARD_SECRET, '--secret', OTHER_STANDARD_SECRET],
    BODY,
  );
  assert.equal(headers['webhook-signature'].split(' ').length, 2);
  new SvixWebhook(STANDARD_SECRET).verify(BODY, headers);
  new StandardWebhook(OTHER_STANDARD_SECRET).verify(BODY, headers);
});

test('hookd stripe signature verifies with stripe.webhooks.constructEvent', () => {
  const headers = hookdSign(['--scheme', 'stripe', '--secret', STRIPE_SECRET], BODY);
  const event = stripe.webhooks.constructEvent(BODY, headers['stripe-signature'], STRIPE_SECRET);
  assert.equal(event.amount, 4200);
  assert.throws(
    () => stripe.webhooks.constructEvent(TAMPERED, headers['stripe-signature'], STRIPE_SECRET),
    /signature/i,
  );
});

test('hookd stripe rotation header (two v1=) verifies with either secret in stripe', () => {
  const other = 'whsec_test_stripe_rotated_secret';
  const headers = hookdSign(['--scheme', 'stripe', '--secret', STRIPE_SECRET, '--secret', other], BODY);
  stripe.webhooks.constructEvent(BODY, headers['stripe-signature'], STRIPE_SECRET);
  stripe.webhooks.constructEvent(BODY, headers['stripe-signature'], other);
});

test('hookd github signature verifies with @octokit/webhooks-methods', async () => {
  const headers = hookdSign(['--scheme', 'github', '--secret', GITHUB_SECRET], BODY);
  const signature = headers['x-hub-signature-256'];
  assert.equal(await octokitVerify(GITHUB_SECRET, BODY, signature), true);
  assert.equal(await octokitVerify(GITHUB_SECRET, TAMPERED, signature), false);
});

test('hookd hmac-hex-ts and generic hmac match node:crypto', () => {
  const ts = 1700000000;
  const hexTs = hookdSign(['--scheme', 'hmac-hex-ts', '--secret', 'seed'], BODY, { timestamp: ts });
  const expected = createHmac('sha256', 'seed').update(`${ts}.${BODY}`).digest('hex');
  assert.equal(hexTs['x-signature'], expected);

  const generic = hookdSign(
    ['--scheme', 'hmac', '--secret', 'gen', '--algorithm', 'sha512', '--encoding', 'base64',
      '--signature-prefix', 'v1=', '--template', '{id}:{timestamp}:{body}'],
    BODY,
    { id: 'msg_x', timestamp: ts },
  );
  const mac = createHmac('sha512', 'gen').update(`msg_x:${ts}:${BODY}`).digest('base64');
  assert.equal(generic['x-signature'], `v1=${mac}`);
});

// ---------- library sign -> hookd verify ----------

function standardHeaders(prefix, id, ts, signature) {
  return { [`${prefix}-id`]: id, [`${prefix}-timestamp`]: String(ts), [`${prefix}-signature`]: signature };
}

test('standardwebhooks signature verifies with hookd verify', () => {
  const ts = 1700000000;
  const signature = new StandardWebhook(STANDARD_SECRET).sign('msg_lib1', new Date(ts * 1000), BODY);
  const headers = standardHeaders('webhook', 'msg_lib1', ts, signature);
  const flags = ['--scheme', 'standard', '--secret', STANDARD_SECRET];
  assertHookdAccepts(flags, headers, BODY, ts + 10);
  assertHookdRejects(flags, headers, TAMPERED, ts + 10);
  const stale = hookdVerify(flags, headers, BODY, ts + 301);
  assert.equal(stale.status, 1);
  assert.match(stale.stderr, /timestamp_too_old/);
});

test('svix signature (svix-* headers) verifies with hookd verify', () => {
  const ts = 1700000000;
  const signature = new SvixWebhook(STANDARD_SECRET).sign('msg_lib2', new Date(ts * 1000), BODY);
  const headers = standardHeaders('svix', 'msg_lib2', ts, signature);
  assertHookdAccepts(['--scheme', 'svix', '--secret', STANDARD_SECRET], headers, BODY, ts);
  assertHookdAccepts(['--scheme', 'standard', '--secret', STANDARD_SECRET], headers, BODY, ts);
  assertHookdRejects(['--scheme', 'svix', '--secret', OTHER_STANDARD_SECRET], headers, BODY, ts);
});

test('stripe generateTestHeaderString verifies with hookd verify', () => {
  const ts = 1700000000;
  const header = stripe.webhooks.generateTestHeaderString({
    payload: BODY, secret: STRIPE_SECRET, timestamp: ts,
  });
  const flags = ['--scheme', 'stripe', '--secret', STRIPE_SECRET];
  assertHookdAccepts(flags, { 'Stripe-Signature': header }, BODY, ts + 5);
  assertHookdRejects(flags, { 'Stripe-Signature': header }, TAMPERED, ts + 5);
});

test('@octokit/webhooks-methods signature verifies with hookd verify', async () => {
  const signature = await octokitSign(GITHUB_SECRET, BODY);
  const flags = ['--scheme', 'github', '--secret', GITHUB_SECRET];
  const headers = { 'X-Hub-Signature-256': signature, 'X-GitHub-Delivery': 'd-1' };
  assertHookdAccepts(flags, headers, BODY, nowSeconds());
  assertHookdRejects(flags, headers, TAMPERED, nowSeconds());
});
