// Issue 17 item 7 with the Svix SDK against a real `hookd serve` and a counting receiver on
// loopback: messageAttempt.listAttemptedMessages (one item per message with its delivery's
// status; status, channel, tag, eventTypes, withContent and paging honoured),
// listAttemptedDestinations, message.expungeContent (the payload is gone from GET, the resend
// is refused with 400 missing_payload, the dead delivery cannot be replayed) and
// messageAttempt.expungeContent (response EXPUNGED), endpoint.sendExample (the schema's
// example, delivered once to that endpoint only), and the transformation routes (501).
// Answers are validated against Svix's schemas (svix-openapi/schemas.json).
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd. Checked: fails with the
// binary from before this change (the routes answered 404).
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { callApi, startHookd, startRecordingReceiver, waitFor } from './hookd_daemon.mjs';
import { svixSchemaProblems } from './svix_schema.mjs';

import { Svix, MessageStatus } from 'svix';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const TOKEN = 'interop_svix_attempted_token';

// Records every request; /fail answers 500 with a body the expunge must remove.
const receiver = await startRecordingReceiver((r) => (r.path === '/fail'
  ? { status: 500, body: 'secret-response-body' } : { status: 200, body: 'ok' }));
const { received } = receiver;
const receiverUrl = receiver.url;
const deliveriesOf = (path, id) =>
  received.filter((r) => r.path === path && r.headers['webhook-id'] === id);

const hookd = await startHookd(HOOKD, { token: TOKEN, configLines: [
  '[delivery]', 'poll_interval = "100ms"', '[ssrf]', 'allowed_subnets = ["127.0.0.0/8"]'] });
after(async () => {
  receiver.close();
  await hookd.stop();
});
const { serverUrl } = hookd;
const svix = new Svix(TOKEN, { serverUrl });

const api = (method, path, body) => callApi(serverUrl, TOKEN, method, path, body);

function assertSvixPage(name, page) {
  assert.equal(typeof page.done, 'boolean');
  assert.ok(Array.isArray(page.data));
  for (const item of page.data) assert.deepEqual(svixSchemaProblems(name, item), [], name);
}

async function rejectsWith(promise, code) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, code, `HTTP ${e.code}: ${JSON.stringify(e.body)}`);
    return true;
  });
}

const app = await svix.application.create({ name: 'attempted' });
const ok = await svix.endpoint.create(app.id, { url: receiverUrl('/ok') });
const failing = await svix.endpoint.create(app.id, { url: receiverUrl('/fail') });
// One attempt, then dead (hookd's own retryPolicy; the SDK's serializer drops it: raw PATCH).
assert.equal((await api('PATCH', `/api/v1/app/${app.id}/endpoint/${failing.id}`,
  { retryPolicy: { maxAttempts: 1 } })).status, 200);
const m1 = await svix.message.create(app.id,
  { eventType: 'order.paid', payload: { n: 1 }, channels: ['crm'] });
const m2 = await svix.message.create(app.id,
  { eventType: 'user.created', payload: { card: '4111-secret' }, tags: ['t1'] });
await waitFor(async () => (await svix.messageAttempt.listAttemptedMessages(app.id, failing.id,
  { status: MessageStatus.Fail })).data.length === 2, 'both messages dead on the failing endpoint');
await waitFor(async () => (await svix.messageAttempt.listAttemptedMessages(app.id, ok.id,
  { status: MessageStatus.Success })).data.length === 2, 'both messages delivered to ok');

test('listAttemptedMessages: one item per message, its status; filters and paging', async () => {
  const all = await svix.messageAttempt.listAttemptedMessages(app.id, ok.id);
  assert.deepEqual(all.data.map((m) => m.id), [m2.id, m1.id]);  // newest first
  assert.ok(all.data.every((m) => m.status === MessageStatus.Success && m.nextAttempt == null));
  assert.deepEqual(all.data[1].payload, { n: 1 });
  assertSvixPage('EndpointMessageOut',
    (await api('GET', `/api/v1/app/${app.id}/endpoint/${ok.id}/msg`)).json);
  const list = (options) => svix.messageAttempt.listAttemptedMessages(app.id, ok.id, options)
    .then((p) => p.data.map((m) => m.id));
  assert.deepEqual(await list({ status: MessageStatus.Fail }), []);
  assert.deepEqual(await list({ channel: 'crm' }), [m1.id]);
  assert.deepEqual(await list({ tag: 't1' }), [m2.id]);
  assert.deepEqual(await list({ eventTypes: ['user.created'] }), [m2.id]);
  assert.deepEqual(await list({ after: new Date(Date.now() + 60_000) }), []);
  const bare = await svix.messageAttempt.listAttemptedMessages(app.id, ok.id,
    { withContent: false });
  assert.ok(bare.data.every((m) => JSON.stringify(m.payload) === '{}'));
  const first = await svix.messageAttempt.listAttemptedMessages(app.id, ok.id, { limit: 1 });
  assert.equal(first.done, false);
  const second = await svix.messageAttempt.listAttemptedMessages(app.id, ok.id,
    { limit: 1, iterator: first.iterator });
  assert.deepEqual(second.data.map((m) => m.id), [m1.id]);
  const dead = await svix.messageAttempt.listAttemptedMessages(app.id, failing.id);
  assert.ok(dead.data.every((m) => m.status === MessageStatus.Fail));
});

test('listAttemptedDestinations: each endpoint with the delivery status there', async () => {
  const page = await svix.messageAttempt.listAttemptedDestinations(app.id, m1.id);
  const byId = Object.fromEntries(page.data.map((d) => [d.id, d]));
  assert.deepEqual(Object.keys(byId).sort(), [ok.id, failing.id].sort());
  assert.equal(byId[ok.id].status, MessageStatus.Success);
  assert.equal(byId[failing.id].status, MessageStatus.Fail);
  assert.equal(byId[ok.id].url, receiverUrl('/ok'));
  assertSvixPage('MessageEndpointOut',
    (await api('GET', `/api/v1/app/${app.id}/msg/${m1.id}/endpoint`)).json);
});

test('expungeContent: the attempt body and the payload are gone and nothing resends it',
  async () => {
    const attempts = await api('GET',
      `/api/v1/app/${app.id}/attempt/msg/${m2.id}?endpoint_id=${failing.id}`);
    const attempt = attempts.json.data[0];
    assert.equal(attempt.response, 'secret-response-body');
    await svix.messageAttempt.expungeContent(app.id, m2.id, attempt.id);
    assert.equal((await svix.messageAttempt.get(app.id, m2.id, attempt.id)).response, 'EXPUNGED');

    await svix.message.expungeContent(app.id, m2.id);
    assert.deepEqual((await svix.message.get(app.id, m2.id)).payload, { expired: true });
    const raw = await api('GET', `/api/v1/app/${app.id}/msg/${m2.id}`);
    assert.ok(!raw.text.includes('4111-secret'), raw.text);
    assert.deepEqual(svixSchemaProblems('MessageOut', raw.json), []);
    const listed = await api('GET', `/api/v1/app/${app.id}/msg`);
    assert.ok(!listed.text.includes('4111-secret'));
    const before = received.length;
    await rejectsWith(svix.messageAttempt.resend(app.id, m2.id, ok.id), 400);
    const resend = await api('POST', `/api/v1/app/${app.id}/msg/${m2.id}/endpoint/${ok.id}/resend`);
    assert.equal(resend.json.code, 'missing_payload');
    // Its dead delivery to the failing endpoint is discarded: DLQ replay refuses it.
    const replay = await api('POST', `/api/v1/hookd/dlq/${attempt.deliveryId}/replay`,
      { reason: 'try the expunged one' });
    assert.equal(replay.status, 409, replay.text);
    assert.equal(received.length, before);  // nothing was sent by these refusals
    const audit = await api('GET', '/api/v1/hookd/audit?action=message.expunge_content');
    assert.deepEqual(audit.json.data.map((e) => e.targetId), [m2.id]);
    await rejectsWith(svix.message.expungeContent(app.id, 'msg_unknown'), 404);
  });

test('sendExample: the schema example, to that endpoint only, delivered once', async () => {
  await svix.eventType.create({ name: 'invoice.paid', description: 'paid',
    schemas: { 1: { type: 'object', examples: [{ a: 1 }, { a: 2 }] } } });
  const out = await svix.endpoint.sendExample(app.id, ok.id,
    { eventType: 'invoice.paid', exampleIndex: 1 });
  assert.deepEqual(out.payload, { a: 2 });
  assert.equal(out.eventType, 'invoice.paid');
  const got = await waitFor(() => deliveriesOf('/ok', out.id).length > 0 &&
    deliveriesOf('/ok', out.id), 'the example delivery');
  assert.equal(got.length, 1);
  assert.equal(got[0].body, '{"a":2}');
  const dests = await svix.messageAttempt.listAttemptedDestinations(app.id, out.id);
  assert.deepEqual(dests.data.map((d) => d.id), [ok.id]);  // not the other endpoint
  assert.equal(deliveriesOf('/fail', out.id).length, 0);
  const ping = await svix.endpoint.sendExample(app.id, failing.id, { eventType: 'svix.ping' });
  assert.deepEqual(ping.payload, { success: true });
  const raw = await api('POST', `/api/v1/app/${app.id}/endpoint/${ok.id}/send-example`,
    { eventType: 'svix.ping' });
  assert.equal(raw.status, 200);
  assert.deepEqual(svixSchemaProblems('MessageOut', raw.json), []);
  await svix.eventType.create({ name: 'bare.type', description: 'no example' });
  await rejectsWith(svix.endpoint.sendExample(app.id, ok.id, { eventType: 'bare.type' }), 400);
});

test('transformations are off: 501 not_implemented, as Svix\'s server', async () => {
  await rejectsWith(svix.endpoint.transformationGet(app.id, ok.id), 501);
  await rejectsWith(svix.endpoint.patchTransformation(app.id, ok.id, { code: 'x' }), 501);
  const raw = await api('GET', `/api/v1/app/${app.id}/endpoint/${ok.id}/transformation`);
  assert.deepEqual(svixSchemaProblems('HttpErrorOut', raw.json), []);
  assert.equal(raw.json.code, 'not_implemented');
});
