// The web UI in headless Chromium (puppeteer-core, Debian's /usr/bin/chromium), against a
// `sluice registry serve --ui --auth` that run_ui_e2e.py starts and fills with a lake, and a
// `sluice ui --registry` in front of it. Each test reads a page the way a person would (which
// rows, of which kind, which buttons) and checks it against the REST API's own answer. The tests
// run in order and share the registry's state.
//
// Environment (set by run_ui_e2e.py): SLUICE_UI_URL, SLUICE_UI_STANDALONE_URL, SLUICE_UI_USERS
// ({"ana": pw, "rob": pw}), SLUICE_UI_SCREENSHOTS (folder), SLUICE_UI_EXAMPLES (examples/),
// SLUICE_CHROMIUM.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const URL_BASE = process.env.SLUICE_UI_URL;
const STANDALONE = process.env.SLUICE_UI_STANDALONE_URL;
const USERS = JSON.parse(process.env.SLUICE_UI_USERS || '{}');
const SHOTS = process.env.SLUICE_UI_SCREENSHOTS;
const EXAMPLES = process.env.SLUICE_UI_EXAMPLES;
const CHROMIUM = process.env.SLUICE_CHROMIUM || '/usr/bin/chromium';

const SUBJECT = 'user_movie_activity-value';
const XSS_SUBJECT = 'xss-value';
const JSON_SUBJECT = 'movies-json-value';
const XSS = '<img src=x onerror=alert(1)>';
const XSS_FIELD = '<img src=x onerror=alert(2)>';
const REGISTRY_TYPE = 'application/vnd.schemaregistry.v1+json';
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const WAIT = { timeout: 15000 };

const readExample = (name) => fs.readFileSync(path.join(EXAMPLES, name), 'utf8');
const V1 = readExample('user_movie_activity_v1.avsc');
const V2 = readExample('user_movie_activity_v2.avsc');
const enc = encodeURIComponent;

let browser;
// Console errors, page errors and CSP violations of every page, checked by the last test.
const problems = [];
// Request paths a test makes fail on purpose (403s): Chromium logs them as console errors.
const expectedFailures = new Set();
const dialogs = [];

function basic(user) {
  return 'Basic ' + Buffer.from(`${user}:${USERS[user]}`).toString('base64');
}

/// One REST call as `user` from outside the browser (no Origin: the CSRF rule does not apply).
async function api(method, urlPath, { user = 'ana', body, headers = {} } = {}) {
  const h = { ...headers };
  if (user) h.Authorization = basic(user);
  if (body !== undefined) h['Content-Type'] = REGISTRY_TYPE;
  const res = await fetch(URL_BASE + urlPath, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, json };
}

async function apiOk(method, urlPath, opts) {
  const r = await api(method, urlPath, opts);
  assert.equal(r.status, 200, `${method} ${urlPath}: ${r.status} ${r.text}`);
  return r.json;
}

/// A new tab logged in as `user`, its console, errors, CSP violations and dialogs recorded.
async function openPage(user = 'ana', { width = 1280, height = 800, dark = false, mobile = false } = {}) {
  // A context of its own: Chromium caches basic auth per origin, so two users in one context
  // would both send the first one's credentials.
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width, height, isMobile: mobile, hasTouch: mobile, deviceScaleFactor: 1 });
  await page.emulateMediaFeatures([
    { name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' },
  ]);
  await page.authenticate({ username: user, password: USERS[user] });
  // Runs outside the page's CSP (DevTools injects it), so it reports violations without being one.
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
    });
  });
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const where = msg.location()?.url || '';
    for (const p of expectedFailures) if (where.includes(p)) return;
    problems.push(`${page.url()}: console error: ${msg.text()} ${where}`);
  });
  page.on('pageerror', (err) => problems.push(`${page.url()}: page error: ${err.message}`));
  page.on('dialog', async (d) => {
    dialogs.push(`${page.url()}: ${d.type()} ${d.message()}`);
    await d.dismiss();
  });
  return page;
}

async function close(page) {
  await page.browserContext().close();
}

async function go(page, route, selector, base = URL_BASE) {
  const res = await page.goto(base + route, { waitUntil: 'networkidle0', timeout: 30000 });
  assert.equal(res.status(), 200, `GET ${route}`);
  if (selector) await page.waitForSelector(selector, WAIT);
  return res;
}

/// A screenshot of the viewport (or the whole page), optionally scrolled so `at` is near the top.
async function shot(page, name, { fullPage = false, at = null } = {}) {
  if (!SHOTS) return;
  if (at) {
    await page.$eval(at, (el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 90));
  }
  await page.screenshot({ path: path.join(SHOTS, name), type: 'png', fullPage });
}

/// Whether `selector` is absent or takes no space on the page (hidden, display:none, ...).
async function absentOrHidden(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return true;
    if (el.hidden || el.closest('[hidden]')) return true;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') return true;
    const box = el.getBoundingClientRect();
    return box.width === 0 && box.height === 0;
  }, selector);
}

async function diffRow(page, fieldPath) {
  const sel = `#side-by-side .diff-row[data-path="${fieldPath}"]`;
  await page.waitForSelector(sel, WAIT);
  return page.$eval(sel, (row) => ({
    kind: row.dataset.kind,
    left: row.querySelector('.left')?.textContent ?? null,
    right: row.querySelector('.right')?.textContent ?? null,
  }));
}

async function pollConfig(subject, want) {
  let level;
  for (let i = 0; i < 50; i++) {
    const r = await api('GET', `/config/${enc(subject)}`);
    level = r.json?.compatibilityLevel;
    if (level === want) return level;
    await new Promise((f) => setTimeout(f, 100));
  }
  return level;
}

before(async () => {
  assert.ok(URL_BASE, 'SLUICE_UI_URL is not set: run tests/ui/run_ui_e2e.py');
  // Seed 001: v2 changes movies_watched[].movie_id from int to string, which BACKWARD refuses;
  // register it under NONE, then put the subject back to BACKWARD so its verdict is a red one.
  await apiOk('PUT', `/config/${enc(SUBJECT)}`, { body: { compatibility: 'NONE' } });
  await apiOk('POST', `/subjects/${enc(SUBJECT)}/versions`, { body: { schema: V1 } });
  await apiOk('POST', `/subjects/${enc(SUBJECT)}/versions`, { body: { schema: V2 } });
  await apiOk('PUT', `/config/${enc(SUBJECT)}`, { body: { compatibility: 'BACKWARD' } });
  const evil = {
    type: 'record',
    name: 'Evil',
    namespace: 'com.example.xss',
    doc: XSS,
    fields: [{ name: 'id', type: 'long', doc: XSS_FIELD }],
  };
  await apiOk('POST', `/subjects/${enc(XSS_SUBJECT)}/versions`, {
    body: { schema: JSON.stringify(evil) },
  });
  await apiOk('POST', `/subjects/${enc(JSON_SUBJECT)}/versions`, {
    body: { schema: readExample('user_movie_activity_v1.schema.json'), schemaType: 'JSON' },
  });
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--font-render-hinting=none',
      '--hide-scrollbars', '--lang=en-US'],
  });
});

after(async () => {
  if (browser) await browser.close();
});

test('every /ui/ response needs auth and carries the CSP and security headers', async () => {
  const anon = await api('GET', '/ui/', { user: null });
  assert.equal(anon.status, 401);
  assert.match(anon.headers.get('www-authenticate') || '', /^Basic/i);
  assert.equal((await api('GET', '/ui/api/session', { user: null })).status, 401);
  for (const route of ['/ui/', `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '/ui/assets/app.js',
    '/ui/api/session']) {
    const r = await api('GET', route, { user: 'rob' });
    assert.equal(r.status, 200, route);
    assert.equal(r.headers.get('content-security-policy'), CSP, route);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', route);
    assert.equal(r.headers.get('referrer-policy'), 'no-referrer', route);
    assert.equal(r.headers.get('x-frame-options'), 'DENY', route);
  }
  // A deep link answers the page itself (client-side routing).
  const deep = await api('GET', `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`);
  assert.match(deep.headers.get('content-type'), /text\/html/);
  assert.equal(deep.headers.get('cache-control'), 'no-store');
  assert.match((await api('GET', '/ui/assets/app.js')).headers.get('content-type'), /javascript/);
});

test('the session names the user, its grants and a 32-hex CSRF token', async () => {
  const s = await apiOk('GET', '/ui/api/session', { user: 'rob' });
  assert.equal(s.user, 'rob');
  assert.deepEqual(s.grants, [{ prefix: '', permission: 'read' }]);
  assert.match(s.csrfToken, /^[0-9a-f]{32}$/);
  assert.equal(s.registry, true);
  assert.deepEqual(s.tables.map((t) => t.name), ['users']);
  assert.deepEqual(s.ingest.map((t) => t.name), ['orders']);
});

test('home links every section', async () => {
  const page = await openPage('ana');
  await go(page, '/ui/', 'nav a');
  const links = await page.$$eval('nav a', (as) => as.map((a) => a.getAttribute('href')));
  for (const section of ['/ui/subjects', '/ui/alerts']) {
    assert.ok(links.some((h) => h && h.startsWith(section)), `nav has no link to ${section}: ${links}`);
  }
  await shot(page, 'ui-home.png');
  await close(page);
});

test('subjects list shows every subject and the search box filters it', async () => {
  const page = await openPage('ana');
  await go(page, '/ui/subjects', '.subject-row');
  const names = await page.$$eval('.subject-row', (rows) => rows.map((r) => r.dataset.subject));
  assert.deepEqual(names.sort(), [JSON_SUBJECT, XSS_SUBJECT, SUBJECT].sort());
  await shot(page, 'ui-subjects.png');
  await page.type('#subject-search', 'movie_activity');
  await page.waitForFunction(
    () => [...document.querySelectorAll('.subject-row')].filter((r) => r.offsetParent !== null)
      .length === 1,
    WAIT,
  );
  const shown = await page.$$eval('.subject-row', (rows) =>
    rows.filter((r) => r.offsetParent !== null).map((r) => r.dataset.subject));
  assert.deepEqual(shown, [SUBJECT]);
  // The type filter: JSON leaves the JSON Schema subject alone.
  await page.$eval('#subject-search', (el) => {
    el.value = '';
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await page.$eval('#filter-type', (el) => {
    const sel = el.tagName === 'SELECT' ? el : el.querySelector('select');
    sel.value = 'JSON';
    sel.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.waitForFunction(
    (want) => {
      const rows = [...document.querySelectorAll('.subject-row')].filter((r) => r.offsetParent !== null);
      return rows.length === 1 && rows[0].dataset.subject === want;
    },
    WAIT,
    JSON_SUBJECT,
  );
  await close(page);
});

test('side-by-side diff shows movies_watched[].movie_id as a type change int -> string', async () => {
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#side-by-side');
  const row = await diffRow(page, 'movies_watched[].movie_id');
  assert.equal(row.kind, 'type_changed');
  assert.match(row.left, /\bint(32)?\b/i);
  assert.doesNotMatch(row.left, /string/i);
  assert.match(row.right, /\bstring\b/i);
  await shot(page, 'ui-diff.png', { fullPage: true });
  await close(page);
});

test('side-by-side diff shows movies_watched[].rating as added and equal fields as unchanged', async () => {
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#side-by-side');
  const rating = await diffRow(page, 'movies_watched[].rating');
  assert.equal(rating.kind, 'field_added');
  assert.match(rating.right, /float/i);
  assert.doesNotMatch(rating.left ?? '', /float/i);
  assert.equal((await diffRow(page, 'user_id')).kind, 'unchanged');
  assert.equal((await diffRow(page, 'movies_watched[].title')).kind, 'unchanged');
  // `latest` is a version in a deep link too.
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/latest`, '#side-by-side');
  assert.equal((await diffRow(page, 'movies_watched[].movie_id')).kind, 'type_changed');
  await close(page);
});

test("the diff's verdict is the REST API's", async () => {
  const rest = await apiOk('POST', `/compatibility/subjects/${enc(SUBJECT)}/versions/1?verbose=true`, {
    body: { schema: V2 },
  });
  const ui = await apiOk('GET', `/ui/api/subjects/${enc(SUBJECT)}/diff?from=1&to=2`);
  assert.equal(rest.is_compatible, false, 'seed 001 v2 is not BACKWARD compatible with v1');
  assert.equal(ui.compatibility.compatible, rest.is_compatible);
  assert.equal(ui.mode, 'BACKWARD');
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#diff-verdict');
  const shown = await page.$eval('#diff-verdict', (el) => el.dataset.compatible);
  assert.equal(shown, String(rest.is_compatible));
  // The verdict names the broken path (movie_id) so a reader knows where to look.
  const text = await page.$eval('body', (b) => b.innerText);
  assert.match(text, /TYPE_MISMATCH|movie_id/);
  await close(page);
});

test("the subject page shows each version's verdict, and changing the mode there changes the API's", async () => {
  const verdicts = await apiOk('GET', `/ui/api/subjects/${enc(SUBJECT)}/verdicts`);
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}`, '.version-row');
  const rows = await page.$$eval('.version-row', (rs) =>
    rs.map((r) => ({ version: Number(r.dataset.version),
      compatible: r.querySelector('.verdict')?.dataset.compatible })));
  assert.deepEqual(rows.map((r) => r.version).sort(), [1, 2]);
  for (const v of verdicts.versions) {
    const row = rows.find((r) => r.version === v.version);
    assert.equal(row.compatible, String(v.compatible), `version ${v.version}`);
  }
  assert.equal(rows.find((r) => r.version === 2).compatible, 'false');
  // ana is an admin: the write actions a read-only user must not see are there for her.
  assert.equal(await absentOrHidden(page, '#action-delete'), false, '#action-delete is missing');
  assert.equal(await absentOrHidden(page, '#mode-save'), false, '#mode-save is missing');
  await shot(page, 'ui-subject.png');

  await page.waitForSelector('#mode-select', WAIT);
  await page.select('#mode-select', 'FULL');
  await page.click('#mode-save');
  assert.equal(await pollConfig(SUBJECT, 'FULL'), 'FULL');
  // A fresh load shows the new mode as the selected one.
  await go(page, `/ui/subjects/${enc(SUBJECT)}`, '#mode-select');
  assert.equal(await page.$eval('#mode-select', (s) => s.value), 'FULL');
  await apiOk('PUT', `/config/${enc(SUBJECT)}`, { body: { compatibility: 'BACKWARD' } });
  await close(page);
});

test('a schema whose doc is HTML renders as text on its version page', async () => {
  const before = dialogs.length;
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(XSS_SUBJECT)}/versions/1`, '.schema-tree');
  // Open every collapsed node so the field's doc is on screen too.
  await page.$$eval('.schema-tree details', (ds) => ds.forEach((d) => { d.open = true; }));
  await new Promise((f) => setTimeout(f, 500));
  const found = await page.evaluate((a, b) => ({
    visible: document.body.innerText.includes(a) || document.body.innerText.includes(b),
    inTree: document.querySelector('.schema-tree').textContent.includes(b),
    imgs: [...document.querySelectorAll('img')].filter((i) => i.getAttribute('src') === 'x').length,
    onerror: document.querySelectorAll('[onerror]').length,
  }), XSS, XSS_FIELD);
  assert.ok(found.visible, 'the doc text is not shown');
  assert.ok(found.inTree, "the field's doc is not in the tree as text");
  assert.equal(found.imgs, 0, 'an <img src=x> element was created');
  assert.equal(found.onerror, 0, 'an element with onerror was created');
  // The raw schema holds it as text too.
  const raw = await page.$eval('#raw-schema', (el) => el.textContent);
  assert.ok(raw.includes('onerror=alert(1)'));
  assert.equal(dialogs.length, before, `a dialog fired: ${dialogs.slice(before)}`);
  await close(page);
});

test('the version page shows the schema as a tree with types', async () => {
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/latest`, '.schema-tree');
  const text = await page.$eval('.schema-tree', (t) => t.textContent);
  for (const word of ['user_id', 'movies_watched', 'movie_id', 'rating', 'string']) {
    assert.ok(text.includes(word), `${word} is not in the tree`);
  }
  await shot(page, 'ui-version-tree.png');
  await close(page);
});

test("the test page's verdict for a pasted schema is the compatibility endpoint's", async () => {
  const candidate = JSON.parse(V1);
  candidate.fields.push({ name: 'device', type: ['null', 'string'], default: null });
  const text = JSON.stringify(candidate, null, 2);
  const rest = await apiOk('POST',
    `/compatibility/subjects/${enc(SUBJECT)}/versions/latest?verbose=true`, { body: { schema: text } });
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}/test`, '#test-schema');
  await page.$eval('#test-schema', (el, t) => {
    el.value = t;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await page.click('#test-run');
  await page.waitForSelector('#test-result[data-compatible]', WAIT);
  const shown = await page.$eval('#test-result', (el) => el.dataset.compatible);
  assert.equal(shown, String(rest.is_compatible));
  assert.equal(await absentOrHidden(page, '#test-register'), false, 'ana may register');
  await shot(page, 'ui-test.png');
  await close(page);
});

test('a read-only user sees no write actions', async () => {
  const page = await openPage('rob');
  await go(page, `/ui/subjects/${enc(SUBJECT)}`, '.version-row');
  for (const sel of ['#mode-save', '#action-delete']) {
    assert.ok(await absentOrHidden(page, sel), `${sel} is shown to a read-only user`);
  }
  await go(page, `/ui/subjects/${enc(SUBJECT)}/test`, '#test-schema');
  assert.ok(await absentOrHidden(page, '#test-register'), '#test-register is shown to rob');
  await close(page);
});

test('a read-only user that tries anyway gets 403 and nothing changes', async () => {
  const page = await openPage('rob');
  await go(page, `/ui/subjects/${enc(SUBJECT)}`, '.version-row');
  expectedFailures.add(`/config/${enc(SUBJECT)}`);
  expectedFailures.add(`/subjects/${enc(SUBJECT)}/versions`);
  const statuses = await page.evaluate(async (subject, schema, type) => {
    const token = (await (await fetch('/ui/api/session')).json()).csrfToken;
    const headers = { 'Content-Type': type, 'X-Sluice-CSRF': token };
    const put = await fetch(`/config/${encodeURIComponent(subject)}`,
      { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'NONE' }) });
    const post = await fetch(`/subjects/${encodeURIComponent(subject)}/versions`,
      { method: 'POST', headers, body: JSON.stringify({ schema }) });
    return [put.status, post.status];
  }, SUBJECT, V1.replace('version 1', 'version 1b'), REGISTRY_TYPE);
  expectedFailures.clear();
  assert.deepEqual(statuses, [403, 403]);
  assert.equal((await apiOk('GET', `/config/${enc(SUBJECT)}`)).compatibilityLevel, 'BACKWARD');
  assert.deepEqual(await apiOk('GET', `/subjects/${enc(SUBJECT)}/versions`), [1, 2]);
  await close(page);
});

test('a mutating request from the page without the CSRF token gets 403', async () => {
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}`, '.version-row');
  expectedFailures.add(`/config/${enc(SUBJECT)}`);
  const [without, body, wrong] = await page.evaluate(async (subject, type) => {
    const url = `/config/${encodeURIComponent(subject)}`;
    const payload = JSON.stringify({ compatibility: 'NONE' });
    const a = await fetch(url, { method: 'PUT', headers: { 'Content-Type': type }, body: payload });
    const b = await fetch(url, { method: 'PUT', body: payload,
      headers: { 'Content-Type': type, 'X-Sluice-CSRF': '0'.repeat(32) } });
    return [a.status, await a.json(), b.status];
  }, SUBJECT, REGISTRY_TYPE);
  expectedFailures.clear();
  assert.equal(without, 403);
  assert.equal(body.error_code, 40301);
  assert.equal(wrong, 403);
  assert.equal((await apiOk('GET', `/config/${enc(SUBJECT)}`)).compatibilityLevel, 'BACKWARD');
  // The same request with the session's token goes through: the 403 was the CSRF check.
  const ok = await page.evaluate(async (subject, type) => {
    const token = (await (await fetch('/ui/api/session')).json()).csrfToken;
    const r = await fetch(`/config/${encodeURIComponent(subject)}`, { method: 'PUT',
      headers: { 'Content-Type': type, 'X-Sluice-CSRF': token },
      body: JSON.stringify({ compatibility: 'FORWARD' }) });
    return r.status;
  }, SUBJECT, REGISTRY_TYPE);
  assert.equal(ok, 200);
  assert.equal(await pollConfig(SUBJECT, 'FORWARD'), 'FORWARD');
  await apiOk('PUT', `/config/${enc(SUBJECT)}`, { body: { compatibility: 'BACKWARD' } });
  await close(page);
});

test('a schema dropped on the test page is tested and registered from there', async () => {
  const evil = JSON.parse((await apiOk('GET', `/subjects/${enc(XSS_SUBJECT)}/versions/1`)).schema);
  evil.fields.push({ name: 'note', type: ['null', 'string'], default: null });
  const text = JSON.stringify(evil, null, 2);
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(XSS_SUBJECT)}/test`, '#test-schema');
  await page.$eval('#test-schema', (area, t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'evil_v2.avsc', { type: 'application/json' }));
    const target = area.closest('.dropzone') ?? area;
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForFunction((t) => document.querySelector('#test-schema').value === t, WAIT, text);
  await page.click('#test-run');
  await page.waitForSelector('#test-result[data-compatible]', WAIT);
  assert.equal(await page.$eval('#test-result', (el) => el.dataset.compatible), 'true');
  await page.click('#test-register');
  for (let i = 0; i < 50; i++) {
    const r = await api('GET', `/subjects/${enc(XSS_SUBJECT)}/versions`);
    if (r.json?.length === 2) break;
    await new Promise((f) => setTimeout(f, 100));
  }
  assert.deepEqual(await apiOk('GET', `/subjects/${enc(XSS_SUBJECT)}/versions`), [1, 2]);
  const stored = JSON.parse((await apiOk('GET', `/subjects/${enc(XSS_SUBJECT)}/versions/2`)).schema);
  assert.equal(stored.fields[1].name, 'note');
  await close(page);
});

test('a version is soft deleted from its subject page; a hard delete of a live one is refused there', async () => {
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(XSS_SUBJECT)}`, '.version-row[data-version="2"]');
  // The confirm panel is the page's own (no browser dialog); its ids follow the version's.
  await page.click('#action-delete-v2');
  await page.click('#action-delete-v2-confirm');
  for (let i = 0; i < 50; i++) {
    if ((await api('GET', `/subjects/${enc(XSS_SUBJECT)}/versions`)).json?.length === 1) break;
    await new Promise((f) => setTimeout(f, 100));
  }
  assert.deepEqual(await apiOk('GET', `/subjects/${enc(XSS_SUBJECT)}/versions`), [1]);
  assert.equal((await api('GET', `/subjects/${enc(XSS_SUBJECT)}/versions/2?deleted=true`)).status, 200);

  await go(page, `/ui/subjects/${enc(XSS_SUBJECT)}`, '.version-row[data-version="1"]');
  await page.click('#action-delete-v1');
  await page.click('#action-delete-v1-permanent');
  expectedFailures.add(`/subjects/${enc(XSS_SUBJECT)}/versions/1`);
  await page.click('#action-delete-v1-confirm');
  // A hard delete needs a soft delete first: the registry refuses it, and the page says so.
  await page.waitForSelector('.confirm:not([hidden]) .status.bad', WAIT);
  expectedFailures.clear();
  assert.deepEqual(await apiOk('GET', `/subjects/${enc(XSS_SUBJECT)}/versions`), [1]);
  await close(page);
});

test('a subject whose name is HTML is listed and opened as text', async () => {
  const name = '<img src=x onerror=alert(3)>';
  await apiOk('POST', `/subjects/${enc(name)}/versions`, { body: { schema: '"string"' } });
  const page = await openPage('ana');
  await go(page, '/ui/subjects', `.subject-row[data-subject="${name}"]`);
  const check = () => page.evaluate((n) => ({
    visible: document.body.innerText.includes(n),
    imgs: [...document.querySelectorAll('img')].filter((i) => i.getAttribute('src') === 'x').length,
  }), name);
  assert.deepEqual(await check(), { visible: true, imgs: 0 });
  await go(page, `/ui/subjects/${enc(name)}`, '.version-row');
  assert.deepEqual(await check(), { visible: true, imgs: 0 });
  await apiOk('DELETE', `/subjects/${enc(name)}`);
  await apiOk('DELETE', `/subjects/${enc(name)}?permanent=true`);
  await close(page);
});

test("the table's history shows seed 000's mergeSchema commit adding loyalty_tier", async () => {
  const page = await openPage('ana');
  await go(page, '/ui/tables/users', '.commit');
  const versions = await page.$$eval('.commit', (cs) => cs.map((c) => Number(c.dataset.version)));
  assert.deepEqual(versions.sort(), [0, 1, 2]);
  const sel = '.commit .diff-row[data-path="loyalty_tier"]';
  await page.waitForSelector(sel, WAIT);
  const row = await page.$eval(sel, (r) => ({
    kind: r.dataset.kind,
    commit: r.closest('.commit').dataset.version,
  }));
  assert.deepEqual(row, { kind: 'field_added', commit: '2' });
  await shot(page, 'ui-table-history.png');
  await close(page);
});

test("a table version's page shows that version's schema", async () => {
  const page = await openPage('ana');
  await go(page, '/ui/tables/users/versions/1', '.schema-tree');
  const text = await page.$eval('.schema-tree', (t) => t.textContent);
  assert.ok(text.includes('email'));
  assert.ok(!text.includes('loyalty_tier'), 'version 1 has no loyalty_tier yet');
  // Any two versions side by side: ?compare=N keeps the other one in the address.
  await go(page, '/ui/tables/users/versions/2?compare=1', '.diff-row[data-path="loyalty_tier"]');
  assert.equal(await page.$eval('.diff-row[data-path="loyalty_tier"]', (r) => r.dataset.kind), 'field_added');
  assert.equal(await page.$eval('.diff-row[data-path="email"]', (r) => r.dataset.kind), 'unchanged');
  await close(page);
});

test('the ingest page charts the batches and lists the quarantined sample', async () => {
  const api_ = await apiOk('GET', '/ui/api/ingest/orders/batches?limit=50');
  assert.equal(api_.batches.length, 2);
  const page = await openPage('ana');
  await go(page, '/ui/ingest/orders', '.batch-row');
  assert.equal(await page.$eval('#ingest-chart', (el) => el.tagName.toLowerCase()), 'svg');
  assert.equal((await page.$$('.batch-row')).length, 2);
  await page.waitForSelector('.quarantine-sample', WAIT);
  const sample = await page.$eval('.quarantine-sample', (el) => el.textContent);
  assert.match(sample, /orders-002\.json/);
  await shot(page, 'ui-ingest.png');
  await close(page);
});

test('the alerts page lists every alert of every outbox with its delivery state', async () => {
  const { alerts } = await apiOk('GET', '/ui/api/alerts');
  // One from the ingest's schema change, one from registering seed 001's v2.
  assert.ok(alerts.length >= 2, `alerts: ${JSON.stringify(alerts)}`);
  const page = await openPage('ana');
  await go(page, '/ui/alerts', '.alert-row');
  const states = await page.$$eval('.alert-row', (rs) => rs.map((r) => r.dataset.state));
  assert.equal(states.length, alerts.length);
  for (const s of states) assert.match(s, /^(pending|delivered|failed)$/);
  await shot(page, 'ui-alerts.png');
  await close(page);
});

test('dark theme follows the system setting', async () => {
  const luminance = async (page) => page.evaluate(() => {
    const c = getComputedStyle(document.body).backgroundColor.match(/[\d.]+/g).map(Number);
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  });
  const light = await openPage('ana');
  await go(light, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#side-by-side');
  const dark = await openPage('ana', { dark: true });
  await go(dark, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#side-by-side');
  await diffRow(dark, 'movies_watched[].movie_id');
  const [l, d] = [await luminance(light), await luminance(dark)];
  assert.ok(d < 100 && l > 150, `body background luminance light ${l}, dark ${d}`);
  await shot(dark, 'ui-diff-dark.png');
  await close(light);
  await close(dark);
});

test('the diff is readable at phone width without sideways scrolling of the page', async () => {
  const page = await openPage('ana', { width: 390, height: 844, mobile: true });
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#side-by-side');
  const row = await diffRow(page, 'movies_watched[].movie_id');
  assert.equal(row.kind, 'type_changed');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 391, `the page is ${width}px wide at a 390px viewport`);
  await shot(page, 'ui-diff-phone.png', { at: '#side-by-side' });
  await close(page);
});

test('at phone width both sides of a changed row are on screen without scrolling sideways', async () => {
  const page = await openPage('ana', { width: 390, height: 844, mobile: true });
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#side-by-side');
  const sel = '#side-by-side .diff-row[data-path="movies_watched[].movie_id"]';
  await page.waitForSelector(sel, WAIT);
  const boxes = await page.$eval(sel, (row) => ['.left', '.right'].map((c) => {
    const b = row.querySelector(c).getBoundingClientRect();
    return { cell: c, left: Math.round(b.left), right: Math.round(b.right) };
  }));
  for (const b of boxes) {
    assert.ok(b.left >= 0 && b.right <= 390, `${b.cell} spans ${b.left}..${b.right}px of 390`);
  }
  await close(page);
});

test('the keyboard reaches the navigation and follows a link', async () => {
  const page = await openPage('ana');
  await go(page, '/ui/', 'nav a');
  let reached = null;
  for (let i = 0; i < 10 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => {
      const a = document.activeElement;
      const away = a && a.tagName === 'A' && a.closest('nav') &&
        new URL(a.href).pathname !== location.pathname;
      return away ? new URL(a.href).pathname : null;
    });
  }
  assert.ok(reached, 'Tab never reached a navigation link to another page');
  await Promise.all([
    page.waitForFunction((p) => location.pathname === p, WAIT, reached),
    page.keyboard.press('Enter'),
  ]);
  // A version's tabs: the arrow keys move from the tree to the raw schema.
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/2`, '[role="tab"]');
  assert.ok(await absentOrHidden(page, '#raw-schema'), 'the raw schema shows before its tab');
  await page.focus('[role="tab"][aria-selected="true"]');
  await page.keyboard.press('ArrowRight');
  assert.equal(await absentOrHidden(page, '#raw-schema'), false, 'ArrowRight did not open the raw tab');
  await close(page);
});

test('`sluice ui --registry` serves the same diff and table pages, forwarding the registry with the caller\'s credentials', async () => {
  assert.ok(STANDALONE, 'SLUICE_UI_STANDALONE_URL is not set');
  const page = await openPage('ana');
  await go(page, `/ui/subjects/${enc(SUBJECT)}/versions/1/diff/2`, '#side-by-side', STANDALONE);
  assert.equal((await diffRow(page, 'movies_watched[].movie_id')).kind, 'type_changed');
  assert.equal(await page.$eval('#diff-verdict', (el) => el.dataset.compatible), 'false');
  await go(page, '/ui/tables/users', '.commit .diff-row[data-path="loyalty_tier"]', STANDALONE);
  await close(page);

  const rob = await openPage('rob');
  await go(rob, `/ui/subjects/${enc(SUBJECT)}`, '.version-row', STANDALONE);
  assert.ok(await absentOrHidden(rob, '#mode-save'), '#mode-save is shown to rob');
  expectedFailures.add(`/config/${enc(SUBJECT)}`);
  const status = await rob.evaluate(async (subject, type) => {
    const token = (await (await fetch('/ui/api/session')).json()).csrfToken;
    const r = await fetch(`/config/${encodeURIComponent(subject)}`, { method: 'PUT',
      headers: { 'Content-Type': type, 'X-Sluice-CSRF': token },
      body: JSON.stringify({ compatibility: 'NONE' }) });
    return r.status;
  }, SUBJECT, REGISTRY_TYPE);
  expectedFailures.clear();
  assert.equal(status, 403);
  assert.equal((await apiOk('GET', `/config/${enc(SUBJECT)}`)).compatibilityLevel, 'BACKWARD');
  await close(rob);
});

test('the browser enforces the CSP: an injected inline script and style do not run', async () => {
  const page = await openPage('ana');
  await go(page, '/ui/subjects', '.subject-row');
  const seen = problems.length;
  const ran = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true;';
    document.body.append(s);
    const p = document.createElement('p');
    p.setAttribute('style', 'color: rgb(1, 2, 3)');
    p.textContent = 'styled';
    document.body.append(p);
    await new Promise((f) => setTimeout(f, 300));
    return { script: window.__injected === true, style: getComputedStyle(p).color === 'rgb(1, 2, 3)' };
  });
  assert.deepEqual(ran, { script: false, style: false });
  // Both were reported as violations, which is how the last test would see a page's own.
  const reported = problems.splice(seen);
  assert.ok(reported.some((m) => /CSP violation: script-src/.test(m)), reported.join('\n'));
  assert.ok(reported.some((m) => /CSP violation: style-src/.test(m)), reported.join('\n'));
  await close(page);
});

test('no page logged a console error, threw, or broke the CSP', () => {
  assert.deepEqual(problems, []);
  assert.deepEqual(dialogs, []);
});
