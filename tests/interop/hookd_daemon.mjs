// What the interop tests that run the real daemon share: a bounded poll, waiting for a
// `hookd serve --port-file F` to write its port and answer /readyz, and a recording receiver.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
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

// Starts `hookd serve` on 127.0.0.1:0 with a fresh database and the given config lines in a
// temporary directory; answers { serverUrl, stop } once it is ready. stop() ends it (SIGTERM,
// then SIGKILL after 2 s) and removes the directory.
export async function startHookd(binary, { token, configLines = [] }) {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'hookd-interop-'));
  writeFileSync(join(dir, 'hookd.toml'), [...configLines, ''].join('\n'));
  const portFile = join(dir, 'port');
  const daemon = spawn(binary, ['serve', '--config', join(dir, 'hookd.toml'), '--database',
    join(dir, 'hookd.db'), '--listen', '127.0.0.1:0', '--token', token, '--port-file', portFile],
  { stdio: ['ignore', 'ignore', 'inherit'] });
  const port = await readyHookdPort(portFile);
  const stop = async () => {
    if (daemon.exitCode === null) daemon.kill('SIGTERM');
    for (let i = 0; i < 40 && daemon.exitCode === null; ++i) await sleep(50);
    if (daemon.exitCode === null) daemon.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  return { serverUrl: `http://127.0.0.1:${port}`, stop };
}

// A receiver on 127.0.0.1 that records every request ({path, headers, body}) in `received`
// and answers what `answer(request)` returns: {status, body}. `url(path)` is its address.
export async function startRecordingReceiver(answer) {
  const received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const request = { path: req.url, headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const { status, body } = answer(request);
      res.writeHead(status).end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    url: (path) => `http://127.0.0.1:${server.address().port}${path}`,
    close: () => server.close(),
  };
}

// A raw JSON call to hookd's API with a bearer token: {status, text, json (undefined when
// the body is empty)}. For checking answers the SDKs' serializers would reshape.
export async function callApi(serverUrl, token, method, path, body) {
  const res = await fetch(`${serverUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}
