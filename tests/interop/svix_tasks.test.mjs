// Issue 17 item 7 with the official Svix SDK (npm `svix` 1.x) against a real `hookd serve`:
// endpoint.replayMissing delivers exactly the messages an endpoint never got (once each, only
// those its filter routes), endpoint.recover re-sends a dead one, both leave a background task
// that backgroundTask.get/list read, and endpoint.getStats counts what the store holds. Raw
// answers are validated against Svix's schemas (svix-openapi/schemas.json).
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd. Checked: fails with the
// binary from before this change (replay-missing and stats were 404, no task could be read).
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { callApi, startHookd, startRecordingReceiver, waitFor } from './hookd_daemon.mjs';
import { svixSchemaProblems } from './svix_schema.mjs';

import { Svix } from 'svix';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const TOKEN = 'interop_svix_tasks_token';

// A counting receiver: every request's path and svix-id (the message id); /flaky answers 500
// until `flakyHeals` is set.
let flakyHeals = false;
const receiver = await startRecordingReceiver((r) => ({
  status: r.path === '/flaky' && !flakyHeals ? 500 : 200, body: 'ok' }));
const { received } = receiver;
const receiverUrl = receiver.url;
const timesReceived = (path, msgId) =>
  received.filter((r) => r.path === path && r.headers['svix-id'] === msgId).length;

const hookd = await startHookd(HOOKD, { token: TOKEN, configLines: [
  '[delivery]', 'poll_interval = "100ms"', '[ssrf]', 'allowed_subnets = ["127.0.0.0/8"]'] });
after(async () => {
  receiver.close();
  await hookd.stop();
});
const { serverUrl } = hookd;
const svix = new Svix(TOKEN, { serverUrl });

// A raw call (the SDK's serializers drop fields, so schemas are checked on the raw answer).
const raw = (method, path, body) => callApi(serverUrl, TOKEN, method, path, body);

function assertSchema(name, value) {
  assert.deepEqual(svixSchemaProblems(name, value), [], `${name}: ${JSON.stringify(value)}`);
}

// Waits until the endpoint has nothing pending or in flight: every delivery recorded, so the
// receiver has seen every request it will get. Answers the stats.
async function settled(appId, endpointId) {
  return waitFor(async () => {
    const s = await svix.endpoint.getStats(appId, endpointId);
    return s.pending === 0 && s.sending === 0 ? s : undefined;
  }, 'the endpoint to settle');
}

test('replayMissing delivers exactly the missing routed messages, once each', async () => {
  const since = new Date(Date.now() - 60_000);
  const app = await svix.application.create({ name: 'svix-replay-missing' });
  const m1 = await svix.message.create(app.id, { eventType: 'order.paid', payload: { n: 1 } });
  const m2 = await svix.message.create(app.id, { eventType: 'order.refunded', payload: { n: 2 } });
  const m3 = await svix.message.create(app.id, { eventType: 'order.paid', payload: { n: 3 } });
  const ep = await svix.endpoint.create(app.id, { url: receiverUrl('/replay'),
    filterTypes: ['order.paid'] });
  const m4 = await svix.message.create(app.id, { eventType: 'order.paid', payload: { n: 4 } });
  await settled(app.id, ep.id);
  assert.equal(timesReceived('/replay', m4.id), 1);
  assert.equal(timesReceived('/replay', m1.id), 0, 'published before the endpoint existed');

  const out = await svix.endpoint.replayMissing(app.id, ep.id, { since });
  assert.match(out.id, /^qtask_/);
  assert.equal(out.status, 'finished');
  assert.equal(out.task, 'endpoint.replay');
  // A second replay finds nothing missing; its raw answer is Svix's ReplayOut.
  const again = await raw('POST', `/api/v1/app/${app.id}/endpoint/${ep.id}/replay-missing`,
    { since: since.toISOString() });
  assert.equal(again.status, 202);
  assertSchema('ReplayOut', again.json);
  assert.equal(again.json.replayed, 0);

  const stats = await settled(app.id, ep.id);
  assert.equal(stats.success, 3, JSON.stringify(stats));
  assert.equal(stats.fail, 0);
  for (const m of [m1, m3, m4]) assert.equal(timesReceived('/replay', m.id), 1, m.id);
  assert.equal(timesReceived('/replay', m2.id), 0, 'not in the endpoint\'s filterTypes');

  const task = await svix.backgroundTask.get(out.id);
  assert.equal(task.id, out.id);
  assert.equal(task.task, 'endpoint.replay');
  assert.equal(task.status, 'finished');
  assert.deepEqual(task.data, { replayed: 2 });
  const rawTask = await raw('GET', `/api/v1/background-task/${out.id}`);
  assertSchema('BackgroundTaskOut', rawTask.json);
});

test('recover re-sends a dead delivery and leaves a task backgroundTask.list finds', async () => {
  const since = new Date(Date.now() - 60_000);
  const app = await svix.application.create({ name: 'svix-recover' });
  // hookd's retryPolicy (raw: the SDK drops fields it does not know): dead after one failure.
  const created = await raw('POST', `/api/v1/app/${app.id}/endpoint`,
    { url: receiverUrl('/flaky'), retryPolicy: { maxAttempts: 1 } });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const ep = created.json;
  const msg = await svix.message.create(app.id, { eventType: 'order.paid', payload: {} });
  const dead = await settled(app.id, ep.id);
  assert.deepEqual([dead.success, dead.fail], [0, 1], JSON.stringify(dead));
  const rawStats = await raw('GET', `/api/v1/app/${app.id}/endpoint/${ep.id}/stats`);
  assertSchema('EndpointStats', rawStats.json);

  flakyHeals = true;
  const out = await svix.endpoint.recover(app.id, ep.id, { since });
  assert.match(out.id, /^qtask_/);
  assert.equal(out.task, 'endpoint.recover');
  assert.equal(out.status, 'finished');
  const healed = await settled(app.id, ep.id);
  assert.deepEqual([healed.success, healed.fail], [1, 0], JSON.stringify(healed));
  assert.equal(timesReceived('/flaky', msg.id), 2, 'the failed attempt and the recovered one');
  const future = await svix.endpoint.getStats(app.id, ep.id,
    { since: new Date(Date.now() + 3_600_000) });
  assert.deepEqual([future.success, future.fail, future.pending], [0, 0, 0]);

  assert.deepEqual((await svix.backgroundTask.get(out.id)).data, { recovered: 1 });
  const recovers = await svix.backgroundTask.list({ task: 'endpoint.recover' });
  assert.ok(recovers.data.some((t) => t.id === out.id), JSON.stringify(recovers));
  assert.ok(recovers.data.every((t) => t.task === 'endpoint.recover'));
  assert.equal((await svix.backgroundTask.list({ status: 'failed' })).data.length, 0);
  const rawList = await raw('GET', '/api/v1/background-task?limit=1');
  assertSchema('ListResponse_BackgroundTaskOut_', rawList.json);
  assert.equal(rawList.json.data.length, 1);
  assert.equal(rawList.json.done, false, 'two tests left three tasks');
});
