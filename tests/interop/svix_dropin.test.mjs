// Issue 17 (Svix drop-in), the lead's items: errors a Svix SDK user catches have Svix's shapes
// (422 = HTTPValidationError, others = HttpErrorOut, validated against the schemas of Svix's
// OpenAPI committed in svix-openapi/schemas.json), and Svix's upserts: endpoint.update of an
// unknown uid creates it, application.getOrCreate returns the existing one.
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd.
import './web_crypto_shim.mjs'; // first: the libraries below need globalThis.crypto (Node 18)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Svix, ApiException } from 'svix';
import { startHookd } from './hookd_daemon.mjs';
import { svixSchemaProblems } from './svix_schema.mjs';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const TOKEN = 'interop_svix_dropin_token';
const hookd = await startHookd(HOOKD, {
  token: TOKEN, configLines: ['[ssrf]', 'allowed_subnets = ["127.0.0.0/8"]'],
});
after(() => hookd.stop());
const svix = new Svix(TOKEN, { serverUrl: hookd.serverUrl });

// The ApiException `call` throws (fails when it does not throw).
async function apiError(call) {
  try {
    await call();
  } catch (e) {
    assert.ok(e instanceof ApiException, `not an ApiException: ${e}`);
    return e;
  }
  assert.fail('the call did not fail');
}

test('the schema check itself refuses a 422 whose detail is a string (hookd\'s old shape)', () => {
  assert.deepEqual(svixSchemaProblems('HTTPValidationError',
    { detail: [{ loc: ['body', 'url'], msg: 'bad', type: 'value_error' }] }), []);
  assert.notDeepEqual(svixSchemaProblems('HTTPValidationError', { detail: 'url: bad' }), []);
  assert.notDeepEqual(svixSchemaProblems('HTTPValidationError',
    { detail: [{ loc: ['body', 2], msg: 'bad', type: 'value_error' }] }), []);
  assert.notDeepEqual(svixSchemaProblems('HttpErrorOut', { detail: 'x' }), []);
});

test('a 422 through the SDK is Svix\'s HTTPValidationError naming each field', async () => {
  const app = await svix.application.create({ name: 'dropin-errors' });
  const e = await apiError(() => svix.endpoint.create(app.id, {
    url: 'ftp://127.0.0.1/x',
  }));
  assert.equal(e.code, 422);
  assert.deepEqual(svixSchemaProblems('HTTPValidationError', e.body), [], JSON.stringify(e.body));
  const locations = e.body.detail.map((d) => d.loc.join('.'));
  assert.ok(locations.includes('body.url'), JSON.stringify(e.body));
  assert.equal(e.body.status, 422, 'problem+json members stay');
  const badUid = await apiError(() => svix.endpoint.create(app.id, {
    url: 'http://127.0.0.1:9/x', uid: 'has space',
  }));
  assert.equal(badUid.code, 422);
  assert.deepEqual(badUid.body.detail.map((d) => d.loc), [['body', 'uid']]);
  const several = await apiError(() => svix.application.create({ name: 'x', uid: 'has space',
    rateLimit: 'fast' }));
  assert.equal(several.code, 422);
  assert.deepEqual(svixSchemaProblems('HTTPValidationError', several.body), []);
  const where = several.body.detail.map((d) => d.loc.join('.'));
  assert.ok(where.includes('body.uid') && where.includes('body.rateLimit'),
    JSON.stringify(several.body));

  const query = await apiError(() => svix.application.list({ limit: 0 }));
  assert.equal(query.code, 422);
  assert.deepEqual(svixSchemaProblems('HTTPValidationError', query.body), []);
  assert.deepEqual(query.body.detail[0].loc, ['query', 'limit']);
});

test('other errors through the SDK are Svix\'s HttpErrorOut', async () => {
  const missing = await apiError(() => svix.application.get('app_2nosuchnosuchnosuchnosuchno'));
  assert.equal(missing.code, 404);
  assert.deepEqual(svixSchemaProblems('HttpErrorOut', missing.body), []);
  assert.equal(missing.body.code, 'not_found');

  await svix.application.create({ name: 'taken', uid: 'dropin-taken' });
  const taken = await apiError(() => svix.application.create({ name: 'again', uid: 'dropin-taken' }));
  assert.equal(taken.code, 409);
  assert.deepEqual(svixSchemaProblems('HttpErrorOut', taken.body), []);

  const unauthorized = await apiError(() => new Svix('wrong_token', { serverUrl: hookd.serverUrl })
    .application.list());
  assert.equal(unauthorized.code, 401);
  assert.deepEqual(svixSchemaProblems('HttpErrorOut', unauthorized.body), []);
});

test('endpoint.update of an unknown uid creates it; a second update changes the same one',
  async () => {
    const app = await svix.application.create({ name: 'dropin-upsert' });
    const created = await svix.endpoint.update(app.id, 'billing', { url: 'http://127.0.0.1:9/a' });
    assert.match(created.id, /^ep_/);
    assert.equal(created.uid, 'billing');
    const { key } = await svix.endpoint.getSecret(app.id, 'billing');
    assert.match(key, /^whsec_/);
    const updated = await svix.endpoint.update(app.id, 'billing',
      { url: 'http://127.0.0.1:9/b', uid: 'billing' });
    assert.equal(updated.id, created.id);
    assert.equal(updated.url, 'http://127.0.0.1:9/b');
    const list = await svix.endpoint.list(app.id);
    assert.deepEqual(list.data.map((ep) => ep.id), [created.id]);
  });

test('application.getOrCreate returns the existing application for a known uid', async () => {
  const first = await svix.application.getOrCreate({ name: 'Tenant', uid: 'dropin-tenant' });
  const again = await svix.application.getOrCreate({ name: 'Other name', uid: 'dropin-tenant' });
  assert.equal(again.id, first.id);
  assert.equal(again.name, 'Tenant');
});
