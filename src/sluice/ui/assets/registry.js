// Registry pages: the subject list, a subject, one version, two versions side by side, and the
// schema tester.

import {
  h,
  enc,
  link,
  get,
  send,
  session,
  canWrite,
  canAdmin,
  LEVELS,
  errorBox,
  errorText,
  pretty,
  verdictBadge,
  table,
  section,
  empty,
  pool,
  router,
  setTitle,
  badge,
} from './lib.js';
import {schemaTree, mergeRows, diffTable, diffLegend, summaryText, locationToPath} from './schema.js';

const subjectHref = (s) => `/ui/subjects/${enc(s)}`;
const versionHref = (s, v) => `${subjectHref(s)}/versions/${enc(v)}`;
const diffHref = (s, a, b) => `${versionHref(s, a)}/diff/${enc(b)}`;
const api = (s) => `/subjects/${enc(s)}`;

function crumbs(...items) {
  const list = h('ol');
  items.forEach(([href, text], n) => {
    list.append(h('li', null, href && n < items.length - 1 ? link(href, text) : h('span', {'aria-current': 'page'}, text)));
  });
  return h('nav', {class: 'crumbs', 'aria-label': 'Breadcrumb'}, list);
}

function selectOf(id, label, options, value, extra = {}) {
  const sel = h(
    'select',
    {id, value, ...extra},
    options.map((o) => (Array.isArray(o) ? h('option', {value: o[0]}, o[1]) : h('option', {value: o}, o))),
  );
  return h('label', {class: 'field', for: id}, h('span', null, label), sel);
}

// ---------------------------------------------------------------------------------------------
// /ui/subjects

export async function subjectsPage(ctx) {
  setTitle('Subjects');
  const sess = await session().catch(() => null);
  if (sess && sess.registry === false) {
    return [h('h1', null, 'Subjects'), empty('This server serves no schema registry: start it with sluice registry serve --ui, or sluice ui --registry URL.')];
  }
  const names = await get('/subjects');
  const info = new Map(names.map((n) => [n, {type: null, mode: null, version: null, id: null}]));
  // One request per page of subjects: each one's latest version, id, type and mode.
  const PAGE = 200;
  const loadPage = (offset) =>
    get(`/ui/api/subjects?offset=${offset}&limit=${PAGE}`).then(
      (page) => {
        for (const s of page.subjects) {
          info.set(s.subject, {type: s.schemaType, mode: s.compatibility, version: s.version, id: s.id});
        }
      },
      () => {},
    );
  // The first page loads before the table shows, so the filters work at once on a small
  // registry; the rest fill in later.
  await loadPage(0);

  const q = ctx.query;
  const search = h('input', {
    id: 'subject-search',
    type: 'search',
    placeholder: 'Search subjects',
    autocomplete: 'off',
    value: q.get('q') ?? '',
  });
  let types = ['AVRO', 'JSON', 'PROTOBUF'];
  try {
    types = await get('/schemas/types');
  } catch {
    // The default list is fine when the registry does not say.
  }
  const typeSel = selectOf('filter-type', 'Type', [['', 'All types'], ...types], q.get('type') ?? '');
  const modeSel = selectOf('filter-mode', 'Compatibility', [['', 'All modes'], ...LEVELS], q.get('mode') ?? '');
  const count = h('p', {class: 'count', 'aria-live': 'polite'});
  const tbody = h('tbody');

  const render = () => {
    const text = search.value.trim().toLowerCase();
    const type = typeSel.querySelector('select').value;
    const mode = modeSel.querySelector('select').value;
    const shown = names.filter((n) => {
      const i = info.get(n);
      return (!text || n.toLowerCase().includes(text)) && (!type || i.type === type) && (!mode || i.mode === mode);
    });
    tbody.replaceChildren(
      ...shown.map((n) => {
        const i = info.get(n);
        return h(
          'tr',
          {class: 'subject-row', data: {subject: n, type: i.type, mode: i.mode}},
          h('th', {scope: 'row'}, link(subjectHref(n), n)),
          h('td', null, i.type ?? '…'),
          h('td', null, i.mode ?? '…'),
          h('td', {class: 'num'}, i.version === null ? '…' : link(versionHref(n, i.version), String(i.version))),
          h('td', {class: 'num'}, i.id ?? '…'),
        );
      }),
    );
    count.textContent = `${shown.length} of ${names.length} subject${names.length === 1 ? '' : 's'}`;
    const params = new URLSearchParams();
    if (search.value) params.set('q', search.value);
    if (type) params.set('type', type);
    if (mode) params.set('mode', mode);
    const qs = params.toString();
    if (location.pathname.replace(/\/$/, '') === '/ui/subjects') {
      history.replaceState(history.state, '', `/ui/subjects${qs ? `?${qs}` : ''}`);
    }
  };
  search.addEventListener('input', render);
  typeSel.addEventListener('change', render);
  modeSel.addEventListener('change', render);
  render();
  if (names.length > PAGE) {
    (async () => {
      for (let offset = PAGE; offset < names.length; offset += PAGE) {
        await loadPage(offset);
        render();
      }
    })();
  }

  return [
    h('h1', null, 'Subjects'),
    h(
      'form',
      {class: 'filters', role: 'search', on: {submit: (e) => e.preventDefault()}},
      h('label', {class: 'field grow', for: 'subject-search'}, h('span', null, 'Search'), search),
      typeSel,
      modeSel,
    ),
    count,
    names.length
      ? h(
          'div',
          {class: 'table-scroll'},
          h(
            'table',
            {id: 'subjects'},
            h(
              'thead',
              null,
              h('tr', null, ['Subject', 'Type', 'Compatibility', 'Latest', 'Id'].map((t) => h('th', {scope: 'col'}, t))),
            ),
            tbody,
          ),
        )
      : empty('The registry holds no subjects yet.'),
  ];
}

// ---------------------------------------------------------------------------------------------
// /ui/subjects/{s}

function incompatibilityList(list, schemaText) {
  if (!list?.length) return null;
  return h(
    'ul',
    {class: 'problems'},
    list.map((p) => {
      const path = locationToPath(schemaText, p.location);
      return h(
        'li',
        {class: 'problem-item', data: {path: path ?? undefined}},
        p.kind ? h('code', {class: 'p-kind'}, p.kind) : null,
        ' ',
        path ? h('span', {class: 'p-path'}, path) : null,
        p.location ? h('span', {class: 'p-loc'}, ` at ${p.location}`) : null,
        p.against ? h('span', {class: 'p-against'}, ` (against ${p.against}${p.direction ? `, ${p.direction}` : ''})`) : null,
        h('div', {class: 'p-msg'}, p.message ?? ''),
        p.hint ? h('div', {class: 'p-hint'}, h('strong', null, 'Fix: '), p.hint) : null,
      );
    }),
  );
}

function modeControl(subject, mode, sess) {
  if (!canAdmin(sess, subject)) {
    return h('p', {class: 'mode'}, 'Compatibility mode: ', h('strong', {id: 'mode-current'}, mode ?? 'unknown'));
  }
  const sel = h('select', {id: 'mode-select', value: mode}, LEVELS.map((l) => h('option', {value: l}, l)));
  const status = h('output', {class: 'status', for: 'mode-select', 'aria-live': 'polite'});
  const save = h('button', {id: 'mode-save', type: 'submit'}, 'Save mode');
  const form = h(
    'form',
    {class: 'inline-form', id: 'mode-form'},
    h('label', {for: 'mode-select'}, 'Compatibility mode '),
    sel,
    ' ',
    save,
    ' ',
    status,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    save.disabled = true;
    status.className = 'status';
    status.textContent = 'Saving…';
    try {
      const res = await send('PUT', `/config/${enc(subject)}`, {compatibility: sel.value});
      status.textContent = `Saved: ${res?.compatibility ?? sel.value}`;
      status.classList.add('ok');
      router.refresh();
    } catch (err) {
      status.textContent = errorText(err);
      status.classList.add('bad');
    } finally {
      save.disabled = false;
    }
  });
  return form;
}

/** A delete button that asks first: soft delete, or permanent when the box is ticked. */
function deleteControl({id, label, what, path, admin, done}) {
  const panel = h('div', {class: 'confirm', hidden: true, role: 'group', 'aria-label': `Confirm: ${label}`});
  const status = h('p', {class: 'status', 'aria-live': 'polite'});
  const perm = h('input', {type: 'checkbox', id: `${id}-permanent`});
  const open = h('button', {type: 'button', class: 'danger', id, 'aria-expanded': 'false'}, label);
  const confirmBtn = h('button', {type: 'button', class: 'danger', id: `${id}-confirm`}, 'Yes, delete');
  const cancel = h('button', {type: 'button', id: `${id}-cancel`}, 'Cancel');
  panel.append(
    h('p', null, `Delete ${what}? A soft delete hides it; a permanent delete (after a soft delete) removes it for good.`),
    h('label', {for: perm.id, class: 'check'}, perm, ' Permanent (hard) delete', admin ? '' : ' — needs admin'),
    h('div', {class: 'buttons'}, confirmBtn, cancel),
    status,
  );
  open.addEventListener('click', () => {
    panel.hidden = !panel.hidden;
    open.setAttribute('aria-expanded', String(!panel.hidden));
    if (!panel.hidden) confirmBtn.focus();
  });
  cancel.addEventListener('click', () => {
    panel.hidden = true;
    open.setAttribute('aria-expanded', 'false');
    open.focus();
  });
  confirmBtn.addEventListener('click', async () => {
    confirmBtn.disabled = true;
    status.className = 'status';
    status.textContent = 'Deleting…';
    try {
      const res = await send('DELETE', `${path}${perm.checked ? '?permanent=true' : ''}`);
      status.textContent = `Deleted: ${JSON.stringify(res)}`;
      status.classList.add('ok');
      done();
    } catch (err) {
      status.textContent = errorText(err);
      status.classList.add('bad');
    } finally {
      confirmBtn.disabled = false;
    }
  });
  return h('div', {class: 'delete-control'}, open, panel);
}

function comparePicker(subject, versions, from, to) {
  const opts = versions.map((v) => h('option', {value: String(v)}, `v${v}`));
  const a = h('select', {id: 'diff-from', value: String(from)}, opts);
  const b = h('select', {id: 'diff-to', value: String(to)}, opts.map((o) => o.cloneNode(true)));
  const go = h('button', {type: 'submit', id: 'diff-go'}, 'Compare');
  const form = h(
    'form',
    {class: 'inline-form compare'},
    h('label', {for: 'diff-from'}, 'Compare '),
    a,
    h('label', {for: 'diff-to'}, ' with '),
    b,
    ' ',
    go,
  );
  a.value = String(from);
  b.value = String(to);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    router.go(diffHref(subject, a.value, b.value));
  });
  return form;
}

/** Schema ids, each filled in with the subject versions that hold it once the registry says. */
function idList(ids) {
  if (!ids?.length) return 'none';
  return h(
    'ul',
    {class: 'refs'},
    ids.map((id) => {
      const item = h('li', {data: {id}}, h('code', null, `id ${id}`));
      get(`/schemas/ids/${enc(id)}/versions`).then(
        (list) => {
          if (!Array.isArray(list) || !list.length) return;
          item.append(
            ': ',
            ...list.flatMap((sv, n) => [n ? ', ' : '', link(versionHref(sv.subject, sv.version), `${sv.subject} v${sv.version}`)]),
          );
        },
        () => {},
      );
      return item;
    }),
  );
}

function referenceList(refs) {
  if (!refs?.length) return 'none';
  return h(
    'ul',
    {class: 'refs'},
    refs.map((r) =>
      h('li', null, h('code', null, r.name ?? ''), ' → ', link(versionHref(r.subject, r.version), `${r.subject} v${r.version}`)),
    ),
  );
}

export async function subjectPage(ctx) {
  const subject = ctx.params[0];
  setTitle(subject);
  const [sess, versions, config] = await Promise.all([
    session(),
    get(`${api(subject)}/versions`),
    get(`/config/${enc(subject)}?defaultToGlobal=true`).catch(() => null),
  ]);
  const [verdicts, latest] = await Promise.all([
    get(`/ui/api/subjects/${enc(subject)}/verdicts`).catch((err) => ({error: err})),
    versions.length
      ? get(`/ui/api/subjects/${enc(subject)}/versions/latest/tree`).catch(() => null)
      : Promise.resolve(null),
  ]);
  const mode = config?.compatibilityLevel ?? verdicts?.mode ?? null;
  const writable = canWrite(sess, subject);
  const admin = canAdmin(sess, subject);
  const byVersion = new Map((verdicts?.versions ?? []).map((v) => [v.version, v]));
  // Schemas for turning locations into paths, fetched lazily only for incompatible versions.
  const texts = new Map();
  await pool(
    (verdicts?.versions ?? []).filter((v) => !v.compatible),
    4,
    async (v) => {
      try {
        texts.set(v.version, (await get(`${api(subject)}/versions/${v.version}`)).schema);
      } catch {
        // The location is still shown as the checker gave it.
      }
    },
  );

  const sorted = [...versions].sort((x, y) => y - x);
  const rows = sorted.map((v) => {
    const vd = byVersion.get(v);
    const prev = versions.filter((x) => x < v).sort((x, y) => y - x)[0];
    return h(
      'tr',
      {class: 'version-row', data: {version: v}},
      h('th', {scope: 'row'}, link(versionHref(subject, v), `v${v}`)),
      h('td', {class: 'num'}, vd?.id ?? ''),
      h('td', null, vd ? verdictBadge(vd.compatible) : h('span', {class: 'muted'}, 'unknown')),
      h('td', {class: 'wide'}, vd ? incompatibilityList(vd.incompatibilities, texts.get(v)) : null),
      h(
        'td',
        {class: 'actions'},
        prev !== undefined ? link(diffHref(subject, prev, v), `diff v${prev} → v${v}`, {class: 'diff-link'}) : null,
        writable
          ? deleteControl({
              id: `action-delete-v${v}`,
              label: 'Delete…',
              what: `${subject} version ${v}`,
              path: `${api(subject)}/versions/${v}`,
              admin,
              done: () => setTimeout(() => router.refresh(), 600),
            })
          : null,
      ),
    );
  });

  const head = [
    crumbs(['/ui/', 'Home'], ['/ui/subjects', 'Subjects'], [null, subject]),
    h('h1', null, subject),
    h(
      'p',
      {class: 'meta'},
      `${versions.length} version${versions.length === 1 ? '' : 's'}`,
      latest ? ` · ${latest.schemaType ?? 'AVRO'} · latest v${latest.version}, id ${latest.id}` : '',
    ),
    modeControl(subject, mode, sess),
  ];
  const actions = writable
    ? h(
        'div',
        {class: 'actions-bar'},
        link(`${subjectHref(subject)}/test`, 'Test or register a schema', {id: 'action-test', class: 'button'}),
        deleteControl({
          id: 'action-delete',
          label: 'Delete subject…',
          what: `every version of ${subject}`,
          path: api(subject),
          admin,
          done: () => setTimeout(() => router.go('/ui/subjects'), 600),
        }),
      )
    : null;

  return [
    ...head,
    actions,
    versions.length >= 2 ? comparePicker(subject, sorted, sorted[1], sorted[0]) : null,
    section(
      'Versions',
      verdicts?.error
        ? errorBox(verdicts.error, 'Verdicts unavailable:')
        : h('p', {class: 'muted'}, `Each version against its predecessors under ${mode ?? 'the subject\u2019s mode'}.`),
      versions.length
        ? table(['Version', 'Id', 'Verdict', 'Incompatibilities', ''], rows, {id: 'versions'})
        : empty('No live versions.'),
    ),
    latest
      ? section(
          `References of v${latest.version}`,
          h(
            'dl',
            {class: 'kv'},
            h('dt', null, 'References'),
            h('dd', {id: 'references'}, referenceList(latest.references)),
            h('dt', null, 'Referenced by'),
            h('dd', {id: 'referrers'}, idList(latest.referrers)),
          ),
        )
      : null,
  ];
}

// ---------------------------------------------------------------------------------------------
// /ui/subjects/{s}/versions/{v}

function tabs(items) {
  const list = h('div', {class: 'tabs', role: 'tablist'});
  const panels = [];
  const buttons = items.map(([id, label, content], n) => {
    const panel = h('div', {id: `panel-${id}`, role: 'tabpanel', 'aria-labelledby': `tab-${id}`, hidden: n !== 0}, content);
    panels.push(panel);
    return h(
      'button',
      {type: 'button', role: 'tab', id: `tab-${id}`, 'aria-controls': `panel-${id}`, 'aria-selected': String(n === 0), tabindex: n === 0 ? '0' : '-1'},
      label,
    );
  });
  const select = (n) => {
    buttons.forEach((b, i) => {
      b.setAttribute('aria-selected', String(i === n));
      b.tabIndex = i === n ? 0 : -1;
      panels[i].hidden = i !== n;
    });
    buttons[n].focus();
  };
  buttons.forEach((b, n) => {
    b.addEventListener('click', () => select(n));
    b.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowRight') select((n + 1) % buttons.length);
      else if (e.key === 'ArrowLeft') select((n + buttons.length - 1) % buttons.length);
      else return;
      e.preventDefault();
    });
  });
  list.append(...buttons);
  return h('div', {class: 'tabbed'}, list, panels);
}

export async function versionPage(ctx) {
  const [subject, version] = ctx.params;
  setTitle(`${subject} v${version}`);
  const [tree, versions, verdicts] = await Promise.all([
    get(`/ui/api/subjects/${enc(subject)}/versions/${enc(version)}/tree`),
    get(`${api(subject)}/versions`).catch(() => []),
    get(`/ui/api/subjects/${enc(subject)}/verdicts`).catch(() => null),
  ]);
  const verdict = (verdicts?.versions ?? []).find((x) => x.version === tree.version);
  const v = tree.version;
  const sorted = [...versions].sort((x, y) => y - x);
  let top = null;
  try {
    top = JSON.parse(tree.schema);
  } catch {
    // Not JSON (or not an object): there is no schema-level name or doc to show.
  }
  const topDoc = top && typeof top === 'object' ? top.doc ?? top.description ?? null : null;
  const topName = top && typeof top === 'object' ? top.name ?? top.title ?? null : null;
  const prev = sorted.find((x) => x < v);
  const next = [...sorted].reverse().find((x) => x > v);
  return [
    crumbs(['/ui/', 'Home'], ['/ui/subjects', 'Subjects'], [subjectHref(subject), subject], [null, `v${v}`]),
    h('h1', null, `${subject} `, h('span', {class: 'muted'}, `v${v}`)),
    typeof topDoc === 'string' ? h('p', {class: 'schema-doc'}, topDoc) : null,

    h(
      'dl',
      {class: 'kv'},
      typeof topName === 'string' ? [h('dt', null, 'Name'), h('dd', null, top.namespace ? `${top.namespace}.${topName}` : topName)] : null,
      h('dt', null, 'Id'),
      h('dd', {id: 'schema-id'}, String(tree.id)),
      h('dt', null, 'Type'),
      h('dd', null, tree.schemaType ?? 'AVRO'),
      verdict
        ? [
            h('dt', null, 'Verdict'),
            h(
              'dd',
              {class: 'version-verdict'},
              verdictBadge(verdict.compatible),
              ` against its predecessors under ${verdicts.mode}`,
              verdict.incompatibilities?.length
                ? h(
                    'details',
                    null,
                    h('summary', null, `${verdict.incompatibilities.length} incompatibilit${verdict.incompatibilities.length === 1 ? 'y' : 'ies'}`),
                    incompatibilityList(verdict.incompatibilities, tree.schema),
                  )
                : null,
            ),
          ]
        : null,
      h('dt', null, 'References'),
      h('dd', {id: 'references'}, referenceList(tree.references)),
      h('dt', null, 'Referenced by'),
      h('dd', {id: 'referrers'}, idList(tree.referrers)),
    ),
    h(
      'div',
      {class: 'toolbar'},
      sorted.length >= 2 ? comparePicker(subject, sorted, prev ?? sorted[sorted.length - 1], v) : null,
      prev !== undefined ? link(versionHref(subject, prev), `← v${prev}`) : null,
      prev !== undefined ? link(diffHref(subject, prev, v), `diff v${prev} → v${v}`) : null,
      next !== undefined ? link(versionHref(subject, next), `v${next} →`) : null,
    ),
    tabs([
      ['tree', 'Tree', tree.fields?.length ? schemaTree(tree.fields) : empty('No fields.')],
      ['raw', 'Raw', h('pre', {id: 'raw-schema', class: 'raw', tabindex: '0'}, pretty(tree.schema))],
    ]),
  ];
}

// ---------------------------------------------------------------------------------------------
// /ui/subjects/{s}/versions/{a}/diff/{b}

export async function diffPage(ctx) {
  const [subject, a, b] = ctx.params;
  setTitle(`${subject} v${a} → v${b}`);
  const base = `/ui/api/subjects/${enc(subject)}`;
  const [left, right, diff, versions] = await Promise.all([
    get(`${base}/versions/${enc(a)}/tree`),
    get(`${base}/versions/${enc(b)}/tree`),
    get(`${base}/diff?from=${enc(a)}&to=${enc(b)}`),
    get(`${api(subject)}/versions`).catch(() => []),
  ]);
  const changes = diff.diff?.changes ?? [];
  const compat = diff.compatibility ?? {};
  const problems = (compat.incompatibilities ?? []).map((p) => ({
    ...p,
    path: locationToPath(right.schema, p.location) ?? locationToPath(left.schema, p.location),
  }));
  const problemPaths = new Set(problems.map((p) => p.path?.toLowerCase()).filter(Boolean));
  const rows = mergeRows(left.fields, right.fields, changes);
  const sorted = [...versions].sort((x, y) => y - x);
  const compatible = Boolean(compat.compatible);

  const verdict = h(
    'section',
    {id: 'diff-verdict', class: ['verdict-box', compatible ? 'ok' : 'bad'], data: {compatible: String(compatible)}, 'aria-live': 'polite'},
    h('h2', null, 'Compatibility verdict: ', verdictBadge(compatible), ` v${right.version} under ${compat.mode ?? diff.mode ?? '?'}`),
    h(
      'p',
      {class: 'muted'},
      `Version ${right.version} checked against its predecessors in the subject's mode`,
      compat.checked?.length ? ` (checked: ${compat.checked.join(', ')})` : ' (nothing to check against)',
      '.',
    ),
    problems.length
      ? h(
          'ol',
          {class: 'problems'},
          problems.map((p) =>
            h(
              'li',
              {class: 'problem-item', data: {path: p.path ?? undefined}},
              p.kind ? h('code', {class: 'p-kind'}, p.kind) : null,
              ' ',
              p.path ? h('strong', {class: 'p-path'}, p.path) : null,
              p.location ? h('span', {class: 'p-loc'}, ` at ${p.location}`) : null,
              p.against ? h('span', {class: 'p-against'}, ` (against ${p.against}${p.direction ? `, ${p.direction}` : ''})`) : null,
              h('div', {class: 'p-msg'}, p.message ?? ''),
              p.hint ? h('div', {class: 'p-hint'}, h('strong', null, 'Fix: '), p.hint) : null,
            ),
          ),
        )
      : null,
  );

  const hints = diff.diff?.hints ?? [];
  return [
    crumbs(
      ['/ui/', 'Home'],
      ['/ui/subjects', 'Subjects'],
      [subjectHref(subject), subject],
      [null, `v${left.version} ↔ v${right.version}`],
    ),
    h('h1', null, `${subject} `, h('span', {class: 'muted'}, `v${left.version} → v${right.version}`)),
    h(
      'div',
      {class: 'toolbar'},
      sorted.length >= 2 ? comparePicker(subject, sorted, left.version, right.version) : null,
      link(diffHref(subject, right.version, left.version), 'swap sides'),
      link(versionHref(subject, left.version), `view v${left.version}`),
      link(versionHref(subject, right.version), `view v${right.version}`),
    ),
    h(
      'p',
      {class: 'verdict-line'},
      verdictBadge(compatible),
      ` v${right.version} under ${compat.mode ?? diff.mode ?? '?'}`,
      problems.length
        ? ` · ${problems.length} incompatibilit${problems.length === 1 ? 'y' : 'ies'}${problems.some((p) => p.path) ? ` at ${[...new Set(problems.map((p) => p.path).filter(Boolean))].join(', ')}` : ''} · `
        : ' · ',
      link('#diff-verdict', 'details below'),
    ),
    section(
      'Side by side',
      h('div', {class: 'summary-bar'}, h('p', {class: 'summary', id: 'diff-summary'}, summaryText(diff.diff?.summary)), diffLegend()),
      diffTable(rows, {
        id: 'side-by-side',
        leftLabel: `v${left.version} (id ${left.id})`,
        rightLabel: `v${right.version} (id ${right.id})`,
        problems: problemPaths,
      }),
      hints.length
        ? h(
            'div',
            {class: 'hints'},
            h('h3', null, 'Rename candidates'),
            h(
              'ul',
              null,
              hints.map((x) => h('li', null, h('code', null, x.from), ' → ', h('code', null, x.to), ` (${x.reason})`)),
            ),
          )
        : null,
    ),
    verdict,
  ];
}

// ---------------------------------------------------------------------------------------------
// /ui/subjects/{s}/test

const isProblem = (m) => typeof m !== 'string' || !/^\{(oldSchema|oldSchemaVersion|validateFields|compatibility)\b/.test(m);

/** One message of the compatibility endpoint; Confluent's "{errorType:'...', ...}" shape is split up. */
function messageItem(m, schemaText) {
  const text = typeof m === 'string' ? m : JSON.stringify(m);
  const parts = /^\{errorType:'(.*?)', description:'(.*)', additionalInfo:'(.*?)'\}$/s.exec(text);
  if (!parts) return h('li', {class: 'problem-item'}, text);
  const [, kind, description, location] = parts;
  const path = locationToPath(schemaText, location);
  return h(
    'li',
    {class: 'problem-item', data: {path: path ?? undefined}},
    h('code', {class: 'p-kind'}, kind),
    ' ',
    path ? h('strong', {class: 'p-path'}, path) : null,
    location ? h('span', {class: 'p-loc'}, ` at ${location}`) : null,
    h('div', {class: 'p-msg'}, description),
  );
}

export async function testPage(ctx) {
  const subject = ctx.params[0];
  setTitle(`Test · ${subject}`);
  // Ask for the latest version only when the subject exists: an expected 404 is still noise.
  const [sess, names, types] = await Promise.all([
    session(),
    get('/subjects').catch(() => []),
    get('/schemas/types').catch(() => ['AVRO', 'JSON']),
  ]);
  const latest = names.includes(subject) ? await get(`${api(subject)}/versions/latest`).catch(() => null) : null;
  const writable = canWrite(sess, subject);
  const area = h('textarea', {
    id: 'test-schema',
    rows: '14',
    spellcheck: 'false',
    placeholder: 'Paste a schema here, or drop a file',
    'aria-describedby': 'test-help',
  });
  const typeSel = h('select', {id: 'test-type', value: latest?.schemaType ?? 'AVRO'}, types.map((t) => h('option', {value: t}, t)));
  typeSel.value = latest?.schemaType ?? 'AVRO';
  const result = h('div', {id: 'test-result', class: 'result', 'aria-live': 'polite'});
  const regResult = h('div', {id: 'register-result', class: 'result', 'aria-live': 'polite'});
  const run = h('button', {type: 'button', id: 'test-run'}, 'Test compatibility');
  const register = writable ? h('button', {type: 'button', id: 'test-register', class: 'primary'}, 'Register') : null;
  const zone = h('div', {class: 'dropzone'}, area);

  const body = () => ({schema: area.value, schemaType: typeSel.value});
  run.addEventListener('click', async () => {
    run.disabled = true;
    result.className = 'result';
    delete result.dataset.compatible;
    result.replaceChildren(h('p', {class: 'loading'}, 'Checking…'));
    try {
      const res = await send('POST', `/compatibility${api(subject)}/versions/latest?verbose=true`, body());
      const ok = Boolean(res?.is_compatible);
      result.dataset.compatible = String(ok);
      result.classList.add(ok ? 'ok' : 'bad');
      const messages = res?.messages ?? [];
      result.replaceChildren(
        ...[
        h('p', null, verdictBadge(ok), ok ? ' with the latest version' : ' with the latest version — do not register it as is'),
        h('ul', {class: 'messages problems'}, messages.filter((m) => isProblem(m)).map((m) => messageItem(m, area.value))),
        messages.some((m) => !isProblem(m))
          ? h(
              'details',
              {class: 'more'},
              h('summary', null, 'More from the registry'),
              h('ul', {class: 'messages'}, messages.filter((m) => !isProblem(m)).map((m) => messageItem(m, area.value))),
            )
          : null,
        ].filter(Boolean),
      );
      result.scrollIntoView({block: 'nearest'});
    } catch (err) {
      result.dataset.compatible = 'false';
      result.dataset.error = String(err.status ?? '');
      result.classList.add('bad');
      result.replaceChildren(errorBox(err, 'Check failed:'));
    } finally {
      run.disabled = false;
    }
  });
  register?.addEventListener('click', async () => {
    register.disabled = true;
    regResult.className = 'result';
    regResult.replaceChildren(h('p', {class: 'loading'}, 'Registering…'));
    try {
      const res = await send('POST', `${api(subject)}/versions`, body());
      regResult.classList.add('ok');
      regResult.dataset.id = String(res?.id ?? '');
      regResult.replaceChildren(
        h('p', null, `Registered: schema id ${res?.id}. `, link(subjectHref(subject), `See ${subject}'s versions`)),
      );
      regResult.scrollIntoView({block: 'nearest'});
    } catch (err) {
      regResult.classList.add('bad');
      regResult.replaceChildren(errorBox(err, 'Not registered:'));
      regResult.scrollIntoView({block: 'nearest'});
    } finally {
      register.disabled = false;
    }
  });

  // Drop a file (or text) onto the box.
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', async (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const file = e.dataTransfer?.files?.[0];
    if (file) {
      area.value = await file.text();
      if (/\.(json)$/i.test(file.name) && !/\.avsc$/i.test(file.name) && types.includes('JSON') && !latest) typeSel.value = 'JSON';
    } else {
      area.value = e.dataTransfer?.getData('text/plain') ?? area.value;
    }
    area.focus();
  });

  const fill = latest
    ? h(
        'button',
        {type: 'button', class: 'small', on: {click: () => ((area.value = pretty(latest.schema)), area.focus())}},
        `Start from v${latest.version}`,
      )
    : null;

  return [
    crumbs(['/ui/', 'Home'], ['/ui/subjects', 'Subjects'], [subjectHref(subject), subject], [null, 'Test']),
    h('h1', null, 'Test a schema against ', h('span', {class: 'muted'}, subject)),
    latest ? null : h('p', {class: 'note'}, 'The subject has no live version yet: registering creates it.'),
    h(
      'p',
      {id: 'test-help', class: 'muted'},
      'Paste a schema or drop a file below, test it against the latest version',
      writable ? ', then register it.' : '. Registering needs write permission on this subject.',
    ),
    h('div', {class: 'inline-form'}, h('label', {for: 'test-type'}, 'Schema type '), typeSel, ' ', fill),
    h('label', {for: 'test-schema', class: 'sr-only'}, 'Schema'),
    zone,
    h('div', {class: 'buttons'}, run, register),
    result,
    regResult,
    writable ? null : badge('read only', 'muted'),
  ];
}
