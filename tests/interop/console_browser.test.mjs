// A36: the console (/console) in a real headless browser: Debian's chromium driven by the npm
// playwright-core (pinned in package.json; no downloaded browser). A real `hookd serve`
// delivers to a receiver that answers 500 until it is "fixed", so a message dead-letters
// (max_attempts = 2). Through the page: log in with the token, see the overview with data,
// find the dead letter, replay it with a reason, see it delivered, see the audit entry with the
// reason. No error may reach the browser console. Screenshots go to the working directory
// (the ctest build tree, never the source tree).
// Mutations checked: a console.js that never sends the Bearer token fails the login step;
// a replay without the reason in the body fails (422 shown, no "replayed").
// Run by ctest (label interop) with HOOKD_BINARY set to build/hookd and
// HOOKD_CHROMIUM (default /usr/bin/chromium).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startHookd, waitFor } from './hookd_daemon.mjs';

const HOOKD = process.env.HOOKD_BINARY;
assert.ok(HOOKD, 'HOOKD_BINARY must point at build/hookd');
const CHROMIUM = process.env.HOOKD_CHROMIUM || '/usr/bin/chromium';
const TOKEN = 'console_browser_token';
const SHOTS = join(process.cwd(), 'console-screenshots');
const EMAIL = 'jane.roe@example.com'; // personal data: masked on every console page (A31)
mkdirSync(SHOTS, { recursive: true });

// A receiver that fails (500) until `fixed`, then answers 200; it records what it got.
let fixed = false;
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    received.push({ ok: fixed, body: Buffer.concat(chunks).toString('utf8') });
    if (fixed) res.writeHead(200).end('thanks');
    else res.writeHead(500).end(`receiver broken for ${EMAIL}`);
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const hookd = await startHookd(HOOKD, { token: TOKEN, configLines: [
  '[delivery]', 'poll_interval = "100ms"', 'max_attempts = 2', 'schedule = ["100ms"]',
  '[ssrf]', 'allowed_subnets = ["127.0.0.0/8"]',
] });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });

after(async () => {
  await browser.close();
  await hookd.stop();
  receiver.close();
});

async function noRawEmail(page, where) {
  assert.ok(!(await page.content()).includes(EMAIL), `no raw e-mail on the ${where} page`);
}

async function api(path, body) {
  const response = await fetch(`${hookd.serverUrl}/api/v1${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  assert.ok(response.ok, `${path}: ${response.status} ${await response.clone().text()}`);
  return response.json();
}

test('A36: log in, overview with data, replay a dead letter with a reason, see the audit entry',
  async () => {
    // Scripted traffic: one message delivered, one dead-lettered.
    const app = await api('/app', { name: 'console-shop', uid: 'console-shop' });
    await api(`/app/${app.id}/endpoint`, { url: receiverUrl, description: 'receiver' });
    const failing = await api(`/app/${app.id}/msg`, { eventType: 'order.paid', payload: { order: 1, email: EMAIL } });
    const dead = await waitFor(async () => (await api('/hookd/dlq')).data[0], 'the dead letter');
    assert.equal(dead.msgId, failing.id);
    fixed = true;
    const good = await api(`/app/${app.id}/msg`, { eventType: 'order.paid', payload: { order: 2 } });
    await waitFor(() => received.some((r) => r.ok && r.body.includes('"order":2')), 'delivery');

    const page = await browser.newPage();
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    await page.goto(`${hookd.serverUrl}/console`);

    // Log in.
    await page.fill('#token', TOKEN);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#page[data-page=overview][data-loaded=true]');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('hookd.console.token')), TOKEN);
    const card = async (id) => page.textContent(`[data-metric=${id}] .value`);
    await waitFor(async () => {
      await page.reload();
      await page.waitForSelector('#page[data-page=overview][data-loaded=true]');
      return (await card('dead_letters')) === '1' && (await card('delivered')) === '1';
    }, 'the overview counts');
    assert.equal(await card('success_rate'), '50.0 %');
    assert.equal(await card('reconcile'), 'none yet');
    assert.equal(await page.locator('svg.chart rect').count(), 3);
    await page.screenshot({ path: join(SHOTS, '1-overview.png'), fullPage: true });

    // Find the dead letter and replay it with a reason.
    await page.click('nav a[href="#dlq"]');
    const row = page.locator(`#dlq-table tr[data-delivery="${dead.id}"]`);
    await row.waitFor();
    assert.match(await row.textContent(), /HTTP 500/);
    await page.screenshot({ path: join(SHOTS, '2-dlq.png'), fullPage: true });
    await noRawEmail(page, 'dead-letter');
    await row.locator('input').fill('receiver fixed its 500');
    await row.locator('button').click();
    await page.waitForSelector(`[data-replayed="${dead.id}"]`);

    // Delivered: the message's detail shows a successful attempt after the failed ones.
    await waitFor(() => received.some((r) => r.ok && r.body.includes('"order":1')), 'the replay');
    await waitFor(async () => {
      await page.goto(`${hookd.serverUrl}/console/#message/${app.id}/${failing.id}`);
      await page.reload(); // the same URL again is only a hash change: render afresh
      await page.waitForSelector('#page[data-page=message][data-loaded=true]');
      return (await page.locator('#attempts tr[data-status=success]').count()) === 1;
    }, 'the successful attempt in the console');
    assert.match(await page.textContent('#payload'), /"order": 1/);
    // A31: masked on the page (the attempt's response too); the receiver got the raw bytes.
    assert.match(await page.textContent('#payload'), /j\*\*\*@example\.com/);
    assert.match(await page.textContent('#attempts'), /receiver broken for j\*\*\*@example\.com/);
    assert.ok(received.some((r) => r.body.includes(EMAIL)), 'the payload is delivered unmasked');
    assert.equal(await page.locator('#attempts tr[data-status=fail]').count(), 2);
    await noRawEmail(page, 'message');
    await page.screenshot({ path: join(SHOTS, '3-message.png'), fullPage: true });

    // The messages list links both messages.
    await page.click('nav a[href="#messages"]');
    await page.waitForSelector('#page[data-page=messages][data-loaded=true]');
    for (const id of [failing.id, good.id]) assert.equal(await page.locator(`a:text("${id}")`).count(), 1);

    // The audit entry: who, what and why.
    await noRawEmail(page, 'messages');
    await page.click('nav a[href="#audit"]');
    const entry = page.locator('#audit tr[data-action="dlq.replay"]');
    await entry.waitFor();
    const text = await entry.textContent();
    assert.match(text, /receiver fixed its 500/);
    assert.match(text, new RegExp(dead.id));
    await page.screenshot({ path: join(SHOTS, '4-audit.png'), fullPage: true });

    // The page never showed the token or an endpoint secret.
    const html = await page.content();
    assert.ok(!html.includes(TOKEN) && !html.includes('whsec_'), 'no token or secret in the page');
    await noRawEmail(page, 'audit');
    assert.deepEqual(consoleErrors, []);
  });
