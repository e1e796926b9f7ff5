// sluice UI entry: client-side routing with the History API, the theme switch and the home page.

import {h, link, get, session, errorBox, section, empty, router, setTitle, fmtNum, ApiError} from './lib.js';
import {subjectsPage, subjectPage, versionPage, diffPage, testPage} from './registry.js';
import {tablesPage, tablePage, tableVersionPage} from './tables.js';
import {ingestListPage, ingestPage, alertsPage} from './ops.js';

const SEG = '([^/]+)';
const ROUTES = [
  [/^\/ui\/?$/, 'home', homePage],
  [/^\/ui\/subjects\/?$/, 'subjects', subjectsPage],
  [new RegExp(`^/ui/subjects/${SEG}/?$`), 'subject', subjectPage],
  [new RegExp(`^/ui/subjects/${SEG}/test/?$`), 'test', testPage],
  [new RegExp(`^/ui/subjects/${SEG}/versions/${SEG}/?$`), 'version', versionPage],
  [new RegExp(`^/ui/subjects/${SEG}/versions/${SEG}/diff/${SEG}/?$`), 'diff', diffPage],
  [/^\/ui\/tables\/?$/, 'tables', tablesPage],
  [new RegExp(`^/ui/tables/${SEG}/?$`), 'table', tablePage],
  [new RegExp(`^/ui/tables/${SEG}/versions/${SEG}/?$`), 'table-version', tableVersionPage],
  [/^\/ui\/ingest\/?$/, 'ingest-list', ingestListPage],
  [new RegExp(`^/ui/ingest/${SEG}/?$`), 'ingest', ingestPage],
  [/^\/ui\/alerts\/?$/, 'alerts', alertsPage],
];

const main = document.getElementById('main');
let renderToken = 0;

function decode(seg) {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

function match(pathname) {
  for (const [re, name, page] of ROUTES) {
    const m = re.exec(pathname);
    if (m) return {name, page, params: m.slice(1).map(decode)};
  }
  return null;
}

function markNav(pathname) {
  for (const a of document.querySelectorAll('nav.main-nav a')) {
    const href = a.getAttribute('href');
    const active = href === '/ui/' ? /^\/ui\/?$/.test(pathname) : pathname.startsWith(href);
    if (active) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

async function render({focus = false} = {}) {
  const token = ++renderToken;
  const {pathname, search} = window.location;
  const route = match(pathname);
  markNav(pathname);
  main.setAttribute('aria-busy', 'true');
  main.dataset.page = route?.name ?? 'not-found';
  main.dataset.state = 'loading';
  main.replaceChildren(h('p', {class: 'loading', role: 'status'}, 'Loading…'));
  let content;
  let state = 'ready';
  if (!route) {
    setTitle('Not found');
    content = [h('h1', null, 'Page not found'), h('p', null, 'No page here. ', link('/ui/', 'Go home'), '.')];
    state = 'error';
  } else {
    try {
      content = await route.page({params: route.params, query: new URLSearchParams(search)});
    } catch (err) {
      content = [h('h1', null, 'Could not load this page'), errorBox(err, 'Error:')];
      state = 'error';
    }
  }
  if (token !== renderToken) return; // a newer navigation won
  main.replaceChildren(...[content].flat(Infinity).filter(Boolean));
  main.setAttribute('aria-busy', 'false');
  main.dataset.state = state;
  if (focus) {
    const h1 = main.querySelector('h1');
    if (h1) {
      h1.tabIndex = -1;
      h1.focus({preventScroll: true});
    }
    window.scrollTo(0, 0);
  }
}

function go(path, {replace = false} = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render({focus: true});
}

router.go = (path) => go(path);
router.refresh = () => render();

// Same-origin links under /ui/ (not assets) navigate without reloading.
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
  if (!a || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
  const url = new URL(a.href, window.location.href);
  if (url.origin !== window.location.origin) return;
  if (!url.pathname.startsWith('/ui/') && url.pathname !== '/ui') return;
  if (url.pathname.startsWith('/ui/assets/') || url.pathname.startsWith('/ui/api/')) return;
  if (url.pathname === window.location.pathname && url.search === window.location.search && url.hash) return;
  e.preventDefault();
  go(url.pathname + url.search);
});

window.addEventListener('popstate', () => render({focus: true}));

// Theme: auto follows prefers-color-scheme; the button cycles auto → light → dark.
const THEMES = ['auto', 'light', 'dark'];
function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === 'auto') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', theme);
  const btn = document.getElementById('theme');
  if (btn) {
    btn.textContent = `Theme: ${theme}`;
    btn.dataset.theme = theme;
    btn.setAttribute('aria-label', `Colour theme: ${theme} (change)`);
  }
}
function initTheme() {
  let theme = 'auto';
  try {
    theme = sessionStorage.getItem('sluice-theme') ?? 'auto';
  } catch {
    // Storage may be off; the system setting still applies.
  }
  if (!THEMES.includes(theme)) theme = 'auto';
  applyTheme(theme);
  document.getElementById('theme')?.addEventListener('click', () => {
    const cur = document.getElementById('theme').dataset.theme ?? 'auto';
    const next = THEMES[(THEMES.indexOf(cur) + 1) % THEMES.length];
    applyTheme(next);
    try {
      sessionStorage.setItem('sluice-theme', next);
    } catch {
      // Not persisted; fine.
    }
  });
}

async function initSession() {
  const who = document.getElementById('user');
  try {
    const sess = await session();
    if (who) who.textContent = sess.user ? `Signed in as ${sess.user}` : '';
    if (!sess.registry) document.querySelector('nav.main-nav a[href="/ui/subjects"]')?.closest('li')?.setAttribute('hidden', '');
  } catch (err) {
    if (who) who.textContent = err instanceof ApiError && err.status === 401 ? 'Not signed in' : '';
  }
}

// ---------------------------------------------------------------------------------------------
// /ui/ — counts with links.

function card(title, href, count, body, id) {
  return h(
    'section',
    {class: 'card', id},
    h('h2', null, link(href, title)),
    h('p', {class: 'big'}, count),
    body,
  );
}

async function homePage() {
  setTitle();
  const sess = await session();
  const safe = (p) => p.then((v) => ({v}), (err) => ({err}));
  const [subjects, tables, ingest, alerts] = await Promise.all([
    sess.registry ? safe(get('/subjects')) : Promise.resolve(null),
    safe(get('/ui/api/tables')),
    safe(get('/ui/api/ingest')),
    safe(get('/ui/api/alerts')),
  ]);
  const listOf = (items, href) =>
    items.length
      ? h(
          'ul',
          {class: 'plain'},
          items.slice(0, 8).map((x) => h('li', null, link(href(x), x.name ?? x))),
          items.length > 8 ? h('li', {class: 'muted'}, `and ${items.length - 8} more`) : null,
        )
      : null;
  const cards = [];
  if (subjects) {
    cards.push(
      subjects.err
        ? card('Subjects', '/ui/subjects', '—', errorBox(subjects.err), 'home-subjects')
        : card(
            'Subjects',
            '/ui/subjects',
            fmtNum(subjects.v.length),
            listOf(subjects.v, (s) => `/ui/subjects/${encodeURIComponent(s)}`) ?? empty('No subjects yet.'),
            'home-subjects',
          ),
    );
  }
  cards.push(
    tables.err
      ? card('Tables', '/ui/tables', '—', errorBox(tables.err), 'home-tables')
      : card(
          'Tables',
          '/ui/tables',
          fmtNum(tables.v.length),
          listOf(tables.v, (t) => `/ui/tables/${encodeURIComponent(t.name)}`) ?? empty('No tables configured.'),
          'home-tables',
        ),
    ingest.err
      ? card('Ingest', '/ui/ingest', '—', errorBox(ingest.err), 'home-ingest')
      : card(
          'Ingest',
          '/ui/ingest',
          fmtNum(ingest.v.length),
          listOf(ingest.v, (i) => `/ui/ingest/${encodeURIComponent(i.name)}`) ?? empty('No ingest configured.'),
          'home-ingest',
        ),
  );
  if (alerts.err) {
    cards.push(card('Alerts', '/ui/alerts', '—', errorBox(alerts.err), 'home-alerts'));
  } else {
    const list = alerts.v.alerts ?? [];
    const by = (st) => list.filter((a) => a.state === st).length;
    cards.push(
      card(
        'Alerts',
        '/ui/alerts',
        fmtNum(list.length),
        h('p', {class: 'muted'}, `${by('pending')} pending, ${by('delivered')} delivered, ${by('failed')} failed`),
        'home-alerts',
      ),
    );
  }
  return [
    h('h1', null, 'Overview'),
    sess.user ? h('p', {class: 'muted'}, `Signed in as ${sess.user}.`) : null,
    h('div', {class: 'cards'}, cards),
    sess.registry ? null : section('Registry', empty('This server serves no registry.')),
  ];
}

initTheme();
initSession();
render();
