// hookd console: plain JavaScript, no build step, no library. Every page reads hookd's REST
// API (and /metrics) with the Bearer token the person typed in, kept in sessionStorage (this
// tab only). Data is put into the page with textContent only (never innerHTML), so a payload
// or a reason cannot inject markup. Secrets are never requested: no page calls /secret or
// /feed-token.
'use strict';

const TOKEN_KEY = 'hookd.console.token';
const $ = (id) => document.getElementById(id);
let refreshTimer = null;

// el('td', {class: 'x'}, 'text', child…): a DOM element with attributes and children.
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c ?? '')));
  return node;
}

function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

class ApiError extends Error {
  constructor(status, detail) { super(`${status}: ${detail}`); this.status = status; }
}

async function request(path, options = {}) {
  // X-Hookd-Mask: every answer comes masked (personal data, secrets; docs/console.md).
  const headers = {
    Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) || ''}`,
    'X-Hookd-Mask': '1',
  };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method: options.method || 'GET', headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  if (response.status === 401) { logout('The token was refused (401).'); throw new ApiError(401, 'unauthorized'); }
  if (!response.ok) {
    let detail = text;
    try { const p = JSON.parse(text); detail = p.detail || p.message || text; } catch { /* plain text */ }
    throw new ApiError(response.status, typeof detail === 'string' ? detail : JSON.stringify(detail));
  }
  return options.raw ? text : (text ? JSON.parse(text) : {});
}

const api = (path, options) => request(`/api/v1${path}`, options);
const enc = encodeURIComponent;

// ---- /metrics: the Prometheus text format, parsed into {name: [{labels, value}]} ----
function parseMetrics(text) {
  const families = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    for (const lm of (m[2] || '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[lm[1]] = lm[2];
    (families[m[1]] ||= []).push({ labels, value: Number(m[3]) });
  }
  return families;
}

const sum = (samples, where = () => true) =>
  (samples || []).filter((s) => where(s.labels)).reduce((a, s) => a + s.value, 0);

function card(label, value, id) {
  return el('div', { class: 'card', 'data-metric': id }, el('div', { class: 'value' }, value),
    el('div', { class: 'label' }, label));
}

function barChart(title, bars) {
  const width = 420; const barHeight = 22; const height = bars.length * (barHeight + 8) + 30;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const svg = svgEl('svg', { class: 'chart', width, height, role: 'img', 'aria-label': title });
  svg.append(svgEl('text', { x: 8, y: 16 }, title));
  bars.forEach((b, i) => {
    const y = 26 + i * (barHeight + 8);
    svg.append(svgEl('text', { x: 8, y: y + 15 }, b.label));
    svg.append(svgEl('rect', { x: 130, y, height: barHeight, width: Math.max(1, (b.value / max) * 230), class: b.cls }));
    svg.append(svgEl('text', { x: 366, y: y + 15 }, String(b.value)));
  });
  return svg;
}

function formatAge(seconds) {
  if (!seconds) return '–';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

async function overviewPage(page) {
  const metrics = parseMetrics(await request('/metrics', { raw: true }).catch((e) => {
    if (e.status === 404) return ''; throw e;
  }));
  const outcomes = metrics.hookd_outbound_deliveries_total;
  const delivered = sum(outcomes, (l) => l.outcome === 'delivered');
  const dead = sum(outcomes, (l) => l.outcome === 'dead_lettered');
  const retried = sum(outcomes, (l) => l.outcome === 'retry_scheduled');
  const finished = delivered + dead;
  const rate = finished ? `${((100 * delivered) / finished).toFixed(1)} %` : 'none yet';
  const reconcile = metrics.hookd_reconcile_differences;
  const unknownKeys = metrics.hookd_proxy_unknown_keys;
  page.append(
    el('h2', {}, 'Overview'),
    Object.keys(metrics).length ? '' : el('p', { class: 'muted' }, 'Metrics are disabled ([metrics] enabled = false).'),
    el('div', { class: 'cards' },
      card('delivery success rate', rate, 'success_rate'),
      card('delivered', delivered, 'delivered'),
      card('dead letters now', sum(metrics.hookd_outbound_dead_letters), 'dead_letters'),
      card('oldest dead letter', formatAge(sum(metrics.hookd_outbound_dead_letter_oldest_age_seconds)), 'dead_letter_age'),
      card('queue depth', sum(metrics.hookd_outbound_queue_depth), 'queue_depth'),
      card('open circuits', sum(metrics.hookd_outbound_open_circuits), 'open_circuits'),
      card('reconciliation differences', reconcile ? sum(reconcile, (l) => l.state === 'open') : 'none yet', 'reconcile'),
      card('idempotency keys unknown', unknownKeys ? sum(unknownKeys) : 'none yet', 'unknown_keys')),
    el('h3', {}, 'Delivery outcomes since start'),
    barChart('deliveries by outcome', [
      { label: 'delivered', value: delivered, cls: 'bar-ok' },
      { label: 'retry scheduled', value: retried, cls: 'bar-retry' },
      { label: 'dead-lettered', value: dead, cls: 'bar-dead' },
    ]),
    el('p', { class: 'muted' }, `Refreshed ${new Date().toLocaleTimeString()} (every 10 s).`));
  refreshTimer = setTimeout(route, 10000);
}

async function dlqPage(page) {
  const list = await api('/hookd/dlq?limit=100');
  page.append(el('h2', {}, 'Dead-letter queue'));
  if (!list.data.length) { page.append(el('p', { id: 'dlq-empty' }, 'No dead letters.')); return; }
  const rows = list.data.map((d) => {
    const reason = el('input', { type: 'text', placeholder: 'reason (required)', 'aria-label': `reason for ${d.id}`, required: '' });
    const form = el('form', { class: 'inline', 'data-delivery': d.id }, reason, el('button', { type: 'submit' }, 'Replay'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const result = await api(`/hookd/dlq/${enc(d.id)}/replay`, { method: 'POST', body: { reason: reason.value } })
        .catch((e) => ({ error: e.message }));
      form.replaceWith(result.error ? el('span', { class: 'error' }, result.error)
        : el('span', { class: 'ok', 'data-replayed': d.id }, `replayed (${result.replayed})`));
    });
    return el('tr', { 'data-delivery': d.id },
      el('td', {}, d.id), el('td', {}, el('a', { href: `#message/${d.appId}/${d.msgId}` }, d.msgId)),
      el('td', {}, d.endpointId), el('td', {}, d.attempts), el('td', {}, d.lastError),
      el('td', {}, d.lastAttemptAt), el('td', {}, form));
  });
  page.append(el('table', { id: 'dlq-table' },
    el('tr', {}, ...['delivery', 'message', 'endpoint', 'attempts', 'last error', 'last attempt', 'replay'].map((h) => el('th', {}, h))),
    ...rows));
}

async function messagesPage(page) {
  page.append(el('h2', {}, 'Messages'));
  const apps = await api('/app?limit=100');
  if (!apps.data.length) { page.append(el('p', {}, 'No applications yet.')); return; }
  for (const app of apps.data) {
    const messages = await api(`/app/${enc(app.id)}/msg?limit=50`);
    page.append(el('h3', {}, `${app.name} (${app.id})`), el('table', { class: 'messages' },
      el('tr', {}, ...['message', 'event type', 'event id', 'time'].map((h) => el('th', {}, h))),
      ...messages.data.map((m) => el('tr', {},
        el('td', {}, el('a', { href: `#message/${app.id}/${m.id}` }, m.id)),
        el('td', {}, m.eventType), el('td', {}, m.eventId || ''), el('td', {}, m.timestamp)))));
  }
}

async function messagePage(page, appId, msgId) {
  const [message, attempts] = await Promise.all([
    api(`/app/${enc(appId)}/msg/${enc(msgId)}`), api(`/app/${enc(appId)}/attempt/msg/${enc(msgId)}`)]);
  page.append(el('h2', {}, `Message ${message.id}`),
    el('p', {}, `event type ${message.eventType}, published ${message.timestamp}`),
    el('h3', {}, 'Payload'), el('pre', { id: 'payload' }, JSON.stringify(message.payload, null, 2)),
    el('h3', {}, 'Attempts'),
    el('table', { id: 'attempts' },
      el('tr', {}, ...['time', 'endpoint', 'status', 'HTTP', 'ms', 'response / error'].map((h) => el('th', {}, h))),
      ...attempts.data.map((a) => el('tr', { 'data-status': a.statusText || String(a.status) },
        el('td', {}, a.timestamp), el('td', {}, a.endpointId), el('td', {}, a.statusText || a.status),
        el('td', {}, a.responseStatusCode), el('td', {}, a.responseDurationMs),
        el('td', {}, el('pre', {}, a.error || a.response || ''))))));
}

async function auditPage(page) {
  const entries = await api('/hookd/audit?limit=100');
  page.append(el('h2', {}, 'Audit log'), el('table', { id: 'audit' },
    el('tr', {}, ...['time', 'who', 'action', 'target', 'reason'].map((h) => el('th', {}, h))),
    ...entries.data.map((e) => el('tr', { 'data-action': e.action },
      el('td', {}, e.at), el('td', {}, e.actor), el('td', {}, e.action),
      el('td', {}, `${e.targetType} ${e.targetId}`), el('td', { class: 'reason' }, e.reason)))));
}

const pages = { overview: overviewPage, dlq: dlqPage, messages: messagesPage, message: messagePage, audit: auditPage };

async function route() {
  clearTimeout(refreshTimer);
  $('status').textContent = '';
  if (!sessionStorage.getItem(TOKEN_KEY)) { showLogin(); return; }
  const [name, ...args] = (location.hash.slice(1) || 'overview').split('/');
  const render = pages[name] || overviewPage;
  $('login').hidden = true; $('nav').hidden = false;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.hash === `#${name}`);
  const page = el('section', { id: 'page', 'data-page': name });
  try {
    await render(page, ...args.map(decodeURIComponent));
  } catch (e) {
    if (e.status === 401) return;
    $('status').textContent = `Could not load this page: ${e.message}`;
  }
  $('page').replaceWith(page);
  page.setAttribute('data-loaded', 'true');
}

function showLogin() {
  $('nav').hidden = true; $('page').hidden = true; $('login').hidden = false;
  $('token').focus();
}

function logout(why = '') {
  sessionStorage.removeItem(TOKEN_KEY);
  $('login-error').textContent = why;
  showLogin();
}

document.addEventListener('DOMContentLoaded', () => {
  $('login-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('token').value);
    $('token').value = '';
    $('login-error').textContent = '';
    try { await api('/app?limit=1'); } catch { return; }
    if (!location.hash) location.hash = '#overview'; else route();
  });
  $('logout').addEventListener('click', () => logout());
  window.addEventListener('hashchange', route);
  route();
});
