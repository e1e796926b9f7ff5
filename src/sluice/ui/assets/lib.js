// Shared helpers: DOM building (text only, never HTML), the JSON client, the session and
// small formatters. Every string from the server goes through textContent or setAttribute.

const SVG_NS = 'http://www.w3.org/2000/svg';
const PROPS = new Set(['value', 'checked', 'selected', 'disabled', 'open', 'hidden']);

function appendKids(el, kids) {
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : String(kid));
  }
}

function applyProps(el, props, late) {
  for (const [key, val] of Object.entries(props ?? {})) {
    if (val === null || val === undefined || val === false) continue;
    if (key === 'class') {
      const cls = Array.isArray(val) ? val.filter(Boolean).join(' ') : String(val);
      if (cls) el.setAttribute('class', cls);
    } else if (key === 'on') {
      for (const [type, fn] of Object.entries(val)) el.addEventListener(type, fn);
    } else if (key === 'text') {
      el.textContent = String(val);
    } else if (key === 'data') {
      for (const [dk, dv] of Object.entries(val)) {
        if (dv !== null && dv !== undefined) el.dataset[dk] = String(dv);
      }
    } else if (PROPS.has(key)) {
      late.push([key, val]);
    } else {
      el.setAttribute(key, val === true ? '' : String(val));
    }
  }
}

/** Build an HTML element: h('a', {href, class, data: {x: 1}, on: {click}}, 'text', child). */
export function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  const late = [];
  applyProps(el, props, late);
  appendKids(el, kids);
  // value and friends after the children, so a <select> finds its options.
  for (const [key, val] of late) el[key] = val;
  return el;
}

/** Build an SVG element; attributes only (presentation attributes are allowed by the CSP). */
export function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, val] of Object.entries(attrs ?? {})) {
    if (val === null || val === undefined || val === false) continue;
    if (key === 'class') el.setAttribute('class', Array.isArray(val) ? val.filter(Boolean).join(' ') : val);
    else el.setAttribute(key, String(val));
  }
  appendKids(el, kids);
  return el;
}

export const enc = encodeURIComponent;

/** Link inside the UI; the router intercepts the click. */
export function link(href, text, props = {}) {
  return h('a', {href, ...props}, text);
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const STATUS_WORDS = {
  0: 'Network error',
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  422: 'Invalid',
  500: 'Server error',
};

/** The error as one line of text for people: "Not allowed (403, 40301): message". */
export function errorText(err) {
  if (err instanceof ApiError) {
    const word = STATUS_WORDS[err.status] ?? `HTTP ${err.status}`;
    const code = err.code && err.code !== err.status ? `, ${err.code}` : '';
    const status = err.status ? ` (${err.status}${code})` : '';
    return `${word}${status}: ${err.message}`;
  }
  return err?.message ? String(err.message) : String(err);
}

export function errorBox(err, title = 'Something went wrong') {
  const box = h('div', {class: 'error', role: 'alert'}, h('strong', null, title), ' ', errorText(err));
  if (err instanceof ApiError) {
    box.dataset.status = String(err.status);
    if (err.status === 401) box.append(h('p', null, 'Reload the page to sign in again.'));
  }
  return box;
}

let sessionPromise = null;

/** GET /ui/api/session once per page load (the CSRF token lives as long as the server). */
export function session() {
  if (!sessionPromise) {
    sessionPromise = request('/ui/api/session').catch((err) => {
      sessionPromise = null;
      throw err;
    });
  }
  return sessionPromise;
}

async function request(path, init = {}) {
  let res;
  try {
    res = await fetch(path, {credentials: 'same-origin', ...init});
  } catch (err) {
    throw new ApiError(0, null, err?.message ?? 'the server did not answer');
  }
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) {
    let msg = res.statusText || 'request failed';
    if (data && typeof data === 'object' && typeof data.message === 'string') msg = data.message;
    else if (typeof data === 'string' && data.trim()) msg = data.trim().slice(0, 500);
    throw new ApiError(res.status, data && typeof data === 'object' ? data.error_code : null, msg);
  }
  return data;
}

/** GET a JSON path. */
export function get(path) {
  return request(path, {headers: {Accept: 'application/vnd.schemaregistry.v1+json, application/json'}});
}

/** A mutating call: sends the CSRF token and the registry's content type. */
export async function send(method, path, body) {
  const sess = await session();
  const init = {
    method,
    headers: {
      Accept: 'application/vnd.schemaregistry.v1+json, application/json',
      'Content-Type': 'application/vnd.schemaregistry.v1+json',
      'X-Sluice-CSRF': sess.csrfToken ?? '',
    },
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  return request(path, init);
}

function grantsFor(sess, subject) {
  return (sess?.grants ?? []).filter((g) => {
    const p = g.prefix ?? '';
    return p === '' || p === '*' || subject.startsWith(p);
  });
}

/** True when some grant lets the user register under the subject. */
export function canWrite(sess, subject) {
  return grantsFor(sess, subject).some((g) => g.permission === 'write' || g.permission === 'admin');
}

/** True when some grant gives admin on the subject (config changes, deletes). */
export function canAdmin(sess, subject) {
  return grantsFor(sess, subject).some((g) => g.permission === 'admin');
}

export const LEVELS = [
  'NONE',
  'BACKWARD',
  'BACKWARD_TRANSITIVE',
  'FORWARD',
  'FORWARD_TRANSITIVE',
  'FULL',
  'FULL_TRANSITIVE',
];

/** "2024-09-25 12:08:36Z" from an ISO string or epoch milliseconds. */
export function fmtTime(value) {
  if (value === null || value === undefined || value === '') return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function fmtNum(value) {
  if (value === null || value === undefined || value === '') return '—';
  const n = Number(value);
  return Number.isFinite(n) ? n.toLocaleString('en-US') : String(value);
}

/** A JSON value as short text (defaults, property values). */
export function fmtJson(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Pretty-print schema text when it is JSON; otherwise return it unchanged. */
export function pretty(text) {
  if (typeof text !== 'string') return JSON.stringify(text, null, 2);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function badge(text, cls, props = {}) {
  return h('span', {class: ['badge', cls], ...props}, text);
}

export function verdictBadge(compatible, props = {}) {
  return h(
    'span',
    {class: ['verdict', compatible ? 'ok' : 'bad'], data: {compatible: String(Boolean(compatible))}, ...props},
    compatible ? 'compatible' : 'incompatible',
  );
}

/** A small table: headers and rows of cells (nodes or text). */
export function table(headers, rows, props = {}) {
  return h(
    'div',
    {class: 'table-scroll'},
    h(
      'table',
      props,
      h('thead', null, h('tr', null, headers.map((t) => h('th', {scope: 'col'}, t)))),
      h('tbody', null, rows),
    ),
  );
}

export function section(title, ...kids) {
  return h('section', {class: 'panel'}, h('h2', null, title), ...kids);
}

export function empty(text) {
  return h('p', {class: 'empty'}, text);
}

/** Run fn over items with at most `limit` calls in flight. */
export async function pool(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker));
  return out;
}

/** The router's hooks, filled in by app.js (kept here to avoid an import cycle). */
export const router = {
  go(path) {
    window.location.assign(path);
  },
  refresh() {
    window.location.reload();
  },
};

export function setTitle(...parts) {
  document.title = [...parts.filter(Boolean), 'sluice'].join(' · ');
}
