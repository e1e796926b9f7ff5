// Ingest and drift pages: batches as a chart and a table, quarantined samples, and the alerts
// the outboxes hold.

import {h, s, enc, link, get, fmtTime, fmtNum, table, section, empty, setTitle, badge} from './lib.js';
import {kindClass} from './schema.js';

const ingestHref = (name) => `/ui/ingest/${enc(name)}`;

export async function ingestListPage() {
  setTitle('Ingest');
  const list = await get('/ui/api/ingest');
  return [
    h('h1', null, 'Ingest'),
    list.length
      ? table(
          ['Name', 'Source', 'Table', 'Checkpoint'],
          list.map((i) =>
            h(
              'tr',
              {class: 'ingest-row', data: {ingest: i.name}},
              h('th', {scope: 'row'}, link(ingestHref(i.name), i.name)),
              h('td', {class: 'path-cell'}, i.source ?? ''),
              h('td', {class: 'path-cell'}, i.table ?? ''),
              h('td', {class: 'path-cell'}, i.path ?? ''),
            ),
          ),
        )
      : empty('No ingest checkpoint is configured (start the server with --ui-ingest NAME=CKPT).'),
  ];
}

const SERIES = [
  ['recordsIn', 'records in', 's-in'],
  ['written', 'written', 's-written'],
  ['rescued', 'rescued', 's-rescued'],
  ['quarantined', 'quarantined', 's-quarantined'],
];

/**
 * Records in / written / rescued / quarantined per batch over time, as an inline SVG: two panels
 * with their own scales, so a handful of quarantined records is not flattened by thousands in.
 */
export function batchChart(batches) {
  const W = 960;
  const H = 300;
  const L = 56;
  const R = 16;
  const panels = [
    {keys: SERIES.slice(0, 2), top: 12, bottom: 168},
    // Quarantined first, so the dashed rescued line stays visible where the two are equal.
    {keys: [SERIES[3], SERIES[2]], top: 196, bottom: 270},
  ];
  const times = batches.map((b) => Number(b.startedMs));
  const useTime = times.every(Number.isFinite) && new Set(times).size > 1;
  const xs = useTime ? times : batches.map((_, i) => i);
  const xmin = Math.min(...xs);
  const xmax = Math.max(...xs);
  const x = (v) => (xmax === xmin ? L + (W - L - R) / 2 : L + ((v - xmin) / (xmax - xmin)) * (W - L - R));
  const r1 = (n) => Math.round(n * 10) / 10;

  const svg = s('svg', {
    id: 'ingest-chart',
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `Records per batch over ${batches.length} batches: in, written, rescued, quarantined`,
    class: 'chart',
  });
  svg.append(s('title', null, 'Records per batch'));
  for (const panel of panels) {
    const ymax = Math.max(1, ...batches.flatMap((b) => panel.keys.map(([k]) => Number(b[k]) || 0)));
    const y = (v) => panel.bottom - (v / ymax) * (panel.bottom - panel.top);
    for (const v of [...new Set([0, Math.round(ymax / 2), ymax])]) {
      svg.append(
        s('line', {x1: L, x2: W - R, y1: r1(y(v)), y2: r1(y(v)), class: 'grid'}),
        s('text', {x: L - 6, y: r1(y(v)) + 4, 'text-anchor': 'end', class: 'axis'}, fmtNum(v)),
      );
    }
    for (const [key, name, cls] of panel.keys) {
      const pts = batches.map((b, i) => [r1(x(xs[i])), r1(y(Number(b[key]) || 0))]);
      svg.append(s('polyline', {points: pts.map((p) => p.join(',')).join(' '), class: ['line', cls], fill: 'none'}));
      const g = s('g', {class: cls});
      pts.forEach(([px, py], i) => {
        g.append(
          s('circle', {cx: px, cy: py, r: 3.5, class: 'dot'}, s('title', null, `batch ${batches[i].batch}: ${fmtNum(batches[i][key] ?? 0)} ${name}`)),
        );
      });
      svg.append(g);
    }
  }
  const label = (v, i) => (useTime ? fmtTime(v).slice(5, 16) : `batch ${batches[i]?.batch ?? i}`);
  const last = batches.length - 1;
  svg.append(s('text', {x: L, y: H - 8, class: 'axis'}, label(xs[0], 0)));
  if (last > 0) svg.append(s('text', {x: W - R, y: H - 8, 'text-anchor': 'end', class: 'axis'}, label(xs[last], last)));
  const legend = h(
    'ul',
    {class: 'legend chart-legend'},
    SERIES.map(([, name, cls]) => h('li', null, h('span', {class: ['swatch', cls]}), name)),
  );
  return h('figure', {class: 'chart-wrap'}, svg, h('figcaption', null, legend));
}

function batchRow(b) {
  const cols = (list) => (list?.length ? list.join(', ') : '');
  return h(
    'tr',
    {class: ['batch-row', b.status && b.status !== 'committed' ? 'warn' : null], data: {batch: b.batch, status: b.status}},
    h('th', {scope: 'row', class: 'num'}, String(b.batch ?? '')),
    h('td', null, b.status ?? ''),
    h('td', null, fmtTime(b.startedMs)),
    h('td', {class: 'num'}, b.durationMs !== undefined ? `${fmtNum(b.durationMs)} ms` : '—'),
    h('td', {class: 'num'}, fmtNum(b.files?.length ?? b.files ?? 0)),
    h('td', {class: 'num'}, fmtNum(b.recordsIn)),
    h('td', {class: 'num'}, fmtNum(b.written)),
    h('td', {class: 'num'}, fmtNum(b.rescued)),
    h('td', {class: ['num', b.quarantined ? 'bad' : null]}, fmtNum(b.quarantined)),
    h('td', {class: 'num'}, b.tableVersion ?? '—'),
    h(
      'td',
      null,
      [
        b.schemaVersion !== undefined && b.schemaVersion !== null ? `v${b.schemaVersion}` : '',
        cols(b.addedColumns) && `added ${cols(b.addedColumns)}`,
        cols(b.widenedColumns) && `widened ${cols(b.widenedColumns)}`,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
  );
}

function rawText(sample) {
  if (sample.raw_encoding === 'base64') {
    return `(base64) ${sample.raw ?? ''}`;
  }
  return sample.raw ?? '';
}

function sampleItem(q) {
  return h(
    'li',
    {class: 'quarantine-sample'},
    h('div', {class: 'q-where'}, h('code', null, `${q.file ?? ''}${q.line !== undefined ? `:${q.line}` : ''}`), q.offset !== undefined ? h('span', {class: 'muted'}, ` byte ${q.offset}`) : null),
    h('div', {class: 'q-error'}, q.error ?? ''),
    q.violations?.length
      ? h('ul', {class: 'q-violations'}, q.violations.map((v) => h('li', null, h('code', null, v.path || '(record)'), ' ', badge(v.kind ?? '', 'k-minor'))))
      : null,
    h('pre', {class: 'raw q-raw', tabindex: '0'}, rawText(q)),
  );
}

export async function ingestPage(ctx) {
  const name = ctx.params[0];
  setTitle(name, 'Ingest');
  const [list, batches, quarantine] = await Promise.all([
    get('/ui/api/ingest').catch(() => []),
    get(`/ui/api/ingest/${enc(name)}/batches?limit=50`),
    get(`/ui/api/ingest/${enc(name)}/quarantine?limit=20`).catch(() => ({samples: []})),
  ]);
  const me = list.find((i) => i.name === name);
  const bs = batches.batches ?? [];
  const samples = [...(quarantine.samples ?? [])].reverse();
  const total = (k) => bs.reduce((n, b) => n + (Number(b[k]) || 0), 0);
  return [
    h('nav', {class: 'crumbs', 'aria-label': 'Breadcrumb'}, h('ol', null, h('li', null, link('/ui/', 'Home')), h('li', null, link('/ui/ingest', 'Ingest')), h('li', null, h('span', {'aria-current': 'page'}, name)))),
    h('h1', null, name),
    me
      ? h('dl', {class: 'kv'}, h('dt', null, 'Source'), h('dd', null, me.source ?? ''), h('dt', null, 'Table'), h('dd', null, me.table ?? ''), h('dt', null, 'Checkpoint'), h('dd', null, me.path ?? ''))
      : null,
    h(
      'p',
      {class: 'meta'},
      `Last ${bs.length} batch${bs.length === 1 ? '' : 'es'}: ${fmtNum(total('recordsIn'))} records in, ${fmtNum(total('written'))} written, ${fmtNum(total('rescued'))} rescued, ${fmtNum(total('quarantined'))} quarantined`,
    ),
    section('Records per batch', bs.length ? batchChart(bs) : empty('No batches yet.')),
    section(
      'Batches',
      bs.length
        ? table(
            ['Batch', 'Status', 'Started', 'Took', 'Files', 'In', 'Written', 'Rescued', 'Quarantined', 'Table version', 'Schema version'],
            [...bs].reverse().map(batchRow),
            {id: 'batches'},
          )
        : empty('No batches yet.'),
    ),
    section('Quarantined samples', samples.length ? h('ol', {class: 'samples', id: 'quarantine'}, samples.map(sampleItem)) : empty('Nothing quarantined.')),
  ];
}

// ---------------------------------------------------------------------------------------------
// /ui/alerts

function changesDetails(report) {
  const changes = report?.changes ?? [];
  if (!report) return h('span', {class: 'muted'}, 'no report');
  if (!changes.length) return h('span', null, 'no changes');
  const sum = report.summary ?? {};
  return h(
    'details',
    {class: 'alert-changes'},
    h('summary', null, `${changes.length} change${changes.length === 1 ? '' : 's'}`, sum.breaking ? ` (${sum.breaking} breaking)` : ''),
    h(
      'ul',
      null,
      changes.map((c) =>
        h(
          'li',
          {class: ['diff-change', kindClass(c.kind)], data: {path: c.path, kind: c.kind}},
          h('code', null, c.path),
          ' ',
          h('span', {class: 'chg'}, c.kind?.replaceAll('_', ' ') ?? ''),
          c.from !== null || c.to !== null ? ` ${c.from ?? '∅'} → ${c.to ?? '∅'}` : '',
        ),
      ),
    ),
    report.reasons?.length
      ? h('ul', {class: 'reasons'}, report.reasons.map((r) => h('li', null, r.path ? [h('code', null, r.path), ': '] : null, r.message ?? '')))
      : null,
  );
}

export async function alertsPage(ctx) {
  setTitle('Alerts');
  const data = await get('/ui/api/alerts');
  const alerts = data.alerts ?? [];
  const initial = ctx.query.get('state') ?? '';
  const filter = h(
    'select',
    {id: 'alert-state', value: initial},
    [['', 'All states'], ['pending', 'pending'], ['delivered', 'delivered'], ['failed', 'failed']].map(([v, t]) => h('option', {value: v}, t)),
  );
  filter.value = initial;
  const tbody = h('tbody');
  const render = () => {
    const st = filter.value;
    tbody.replaceChildren(
      ...alerts
        .filter((a) => !st || a.state === st)
        .map((a) => {
          const r = a.report;
          return h(
            'tr',
            {class: ['alert-row', `state-${a.state}`], data: {state: a.state, id: a.id, verdict: r?.verdict}},
            h('td', null, fmtTime(a.createdAt)),
            h('td', {class: 'path-cell'}, r?.source ?? a.source ?? '', r?.sourceKind ? h('div', {class: 'muted'}, r.sourceKind) : null),
            h('td', null, r ? badge(r.verdict, `v-${r.verdict}`) : '—', r?.rulesDetail ? h('div', {class: 'muted'}, r.rulesDetail) : null),
            h('td', {class: 'wide'}, changesDetails(r)),
            h(
              'td',
              {class: 'path-cell'},
              a.target ?? '',
              a.kind || a.outbox ? h('div', {class: 'muted'}, [a.kind, a.outbox ? `outbox ${a.outbox}` : null].filter(Boolean).join(' · ')) : null,
            ),
            h('td', null, badge(a.state, `st-${a.state}`), a.deliveredAt ? h('div', {class: 'muted'}, fmtTime(a.deliveredAt)) : null),
            h('td', {class: 'num'}, fmtNum(a.attempts)),
            h('td', {class: 'err-cell'}, a.lastError ?? ''),
          );
        }),
    );
  };
  filter.addEventListener('change', () => {
    render();
    if (location.pathname.replace(/\/$/, '') === '/ui/alerts') {
      history.replaceState(history.state, '', `/ui/alerts${filter.value ? `?state=${encodeURIComponent(filter.value)}` : ''}`);
    }
  });
  render();
  const counts = ['pending', 'delivered', 'failed'].map((st) => `${alerts.filter((a) => a.state === st).length} ${st}`).join(', ');
  return [
    h('h1', null, 'Drift alerts'),
    h('p', {class: 'meta'}, `${alerts.length} alert${alerts.length === 1 ? '' : 's'}: ${counts}`),
    h('div', {class: 'inline-form'}, h('label', {for: 'alert-state'}, 'Delivery state '), filter),
    alerts.length
      ? h(
          'div',
          {class: 'table-scroll'},
          h(
            'table',
            {id: 'alerts'},
            h('thead', null, h('tr', null, ['Created', 'Source', 'Verdict', 'Changes', 'Target', 'State', 'Attempts', 'Last error'].map((t) => h('th', {scope: 'col'}, t)))),
            tbody,
          ),
        )
      : empty('No alerts in the configured outboxes.'),
  ];
}
