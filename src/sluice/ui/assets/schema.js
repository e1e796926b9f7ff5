// Schema views: the collapsible field tree and the side-by-side diff table.

import {h, fmtJson} from './lib.js';

function nullTag(nullable) {
  if (nullable === undefined || nullable === null) return null;
  return h('span', {class: ['null-tag', nullable ? 'nullable' : 'required']}, nullable ? 'nullable' : 'not null');
}

/** A type word; a long nested type (its children are listed anyway) is cut, whole in the title. */
export function typeSpan(node) {
  const full = String(node.type ?? '');
  const long = node.kind && node.kind !== 'primitive' && full.length > 32;
  return h('span', {class: 'f-type', title: long ? full : null}, long ? `${full.slice(0, 30)}…` : full);
}

function nodeLine(node) {
  const line = [
    h('span', {class: 'f-name'}, node.name ?? ''),
    typeSpan(node),
    nullTag(node.nullable),
  ];
  if (node.default !== undefined) {
    line.push(h('span', {class: 'f-default'}, 'default ', h('code', null, fmtJson(node.default))));
  }
  return line;
}

function treeNode(node, depth) {
  const kids = Array.isArray(node.children) ? node.children : [];
  const doc = node.doc ? h('p', {class: 'f-doc'}, node.doc) : null;
  const item = h('li', {data: {path: node.path ?? node.name, kind: node.kind}});
  if (kids.length) {
    item.append(
      h(
        'details',
        {open: depth < 3},
        h('summary', null, h('span', {class: 'f-line'}, nodeLine(node))),
        doc,
        h('ul', null, kids.map((k) => treeNode(k, depth + 1))),
      ),
    );
  } else {
    item.classList.add('leaf');
    item.append(h('div', {class: 'f-line'}, nodeLine(node)));
    if (doc) item.append(doc);
  }
  return item;
}

/** The fields as nested lists; a struct, array or map is a <details> that opens and closes. */
export function schemaTree(fields) {
  const list = h('ul', {class: 'schema-tree'}, (fields ?? []).map((f) => treeNode(f, 0)));
  const setAll = (open) => list.querySelectorAll('details').forEach((d) => (d.open = open));
  const tools = h(
    'div',
    {class: 'tree-tools'},
    h('button', {type: 'button', class: 'small', on: {click: () => setAll(true)}}, 'Expand all'),
    h('button', {type: 'button', class: 'small', on: {click: () => setAll(false)}}, 'Collapse all'),
  );
  const nested = (fields ?? []).some((f) => f.children?.length);
  return h('div', {class: 'tree-wrap'}, nested ? tools : null, list);
}

/** Every node in pre-order with its depth. */
export function flatten(fields, depth = 0, out = []) {
  for (const node of fields ?? []) {
    out.push({path: node.path ?? node.name, node, depth});
    flatten(node.children, depth + 1, out);
  }
  return out;
}

const KIND_ORDER = [
  'field_added',
  'field_removed',
  'type_changed',
  'type_narrowed',
  'type_widened',
  'nullability_tightened',
  'nullability_relaxed',
  'case_changed',
  'field_moved',
  'default_changed',
  'doc_changed',
  'metadata_changed',
];

/** The CSS class for a change kind: added green, removed red, type amber, nullability blue. */
export function kindClass(kind) {
  if (kind === 'field_added') return 'k-added';
  if (kind === 'field_removed') return 'k-removed';
  if (kind?.startsWith('type_')) return 'k-type';
  if (kind?.startsWith('nullability_')) return 'k-null';
  if (!kind || kind === 'unchanged') return 'k-same';
  return 'k-minor';
}

function primaryKind(changes) {
  let best = null;
  for (const c of changes) {
    const rank = KIND_ORDER.indexOf(c.kind);
    const r = rank < 0 ? KIND_ORDER.length : rank;
    if (!best || r < best.r) best = {r, kind: c.kind};
  }
  return best ? best.kind : 'unchanged';
}

function keyOf(path) {
  return String(path ?? '').toLowerCase();
}

/**
 * The union of both trees' paths in tree order (a removed field right after the old field it
 * followed), each with its old node, new node and the diff's changes at that path.
 */
export function mergeRows(oldFields, newFields, changes) {
  const olds = flatten(oldFields);
  const news = flatten(newFields);
  const oldByKey = new Map(olds.map((e, i) => [keyOf(e.path), {...e, i}]));
  const newKeys = new Set(news.map((e) => keyOf(e.path)));
  const order = [];
  let i = 0;
  const flushOld = (upto) => {
    while (i <= upto && i < olds.length) {
      if (!newKeys.has(keyOf(olds[i].path))) order.push({old: olds[i], neu: null});
      i++;
    }
  };
  for (const e of news) {
    const o = oldByKey.get(keyOf(e.path));
    if (o) flushOld(o.i);
    order.push({old: o ?? null, neu: e});
  }
  flushOld(olds.length);

  const byPath = new Map();
  for (const c of changes ?? []) {
    const k = keyOf(c.path);
    if (!byPath.has(k)) byPath.set(k, []);
    byPath.get(k).push(c);
  }
  const used = new Set();
  const rows = order.map(({old, neu}) => {
    const path = (neu ?? old).path;
    const k = keyOf(path);
    const cs = byPath.get(k) ?? [];
    if (cs.length) used.add(k);
    let kind = primaryKind(cs);
    // A field on one side only is an addition or removal even when the diff names only its parent.
    if (kind === 'unchanged' && !old) kind = 'field_added';
    if (kind === 'unchanged' && !neu) kind = 'field_removed';
    return {path, depth: (neu ?? old).depth, old: old?.node ?? null, neu: neu?.node ?? null, kind, changes: cs};
  });
  // Changes at paths neither tree lists (should not happen) still get a row.
  for (const c of changes ?? []) {
    const k = keyOf(c.path);
    if (used.has(k)) continue;
    used.add(k);
    const cs = byPath.get(k);
    rows.push({path: c.path, depth: 0, old: null, neu: null, kind: primaryKind(cs), changes: cs});
  }
  return rows;
}

/** Rows from a list of changes alone (table history carries no trees). */
export function rowsFromChanges(changes) {
  const byPath = new Map();
  for (const c of changes ?? []) {
    if (!byPath.has(c.path)) byPath.set(c.path, []);
    byPath.get(c.path).push(c);
  }
  return [...byPath.entries()].map(([path, cs]) => ({
    path,
    depth: depthOf(path),
    old: null,
    neu: null,
    kind: primaryKind(cs),
    changes: cs,
  }));
}

function depthOf(path) {
  let depth = 0;
  let quoted = false;
  for (const ch of String(path)) {
    if (ch === '`') quoted = !quoted;
    else if (!quoted && (ch === '.' || ch === '[' || ch === '{')) depth++;
  }
  return depth;
}

function sideCell(node, changes, side) {
  if (node) {
    return [typeSpan(node), ' ', nullTag(node.nullable)];
  }
  // No tree: show the type-like words of the changes (from on the left, to on the right).
  const words = changes.map((c) => (side === 'left' ? c.from : c.to)).filter((w) => w !== null && w !== undefined);
  if (!words.length) return h('span', {class: 'absent'}, '—');
  return words.map((w, n) => [n ? h('br') : null, h('span', {class: 'f-type'}, String(w))]);
}

function changeCell(changes, kind) {
  if (!changes.length) {
    return kind && kind !== 'unchanged' ? h('span', {class: ['chg', kindClass(kind)]}, kind.replaceAll('_', ' ')) : '';
  }
  return changes.map((c) => h(
    'div',
    {class: 'chg-line'},
    h('span', {class: ['chg', kindClass(c.kind)]}, c.kind.replaceAll('_', ' ')),
    c.severity ? h('span', {class: ['sev', `sev-${c.severity}`]}, c.severity) : null,
    c.kind === 'field_added' || c.kind === 'field_removed' || (c.from === null && c.to === null)
      ? null
      : h('span', {class: 'fromto'}, `${c.from ?? '∅'} → ${c.to ?? '∅'}`),
  ));
}

/**
 * The side-by-side table: one .diff-row per path (data-path, data-kind), .left = old side,
 * .right = new side, coloured by kind. `problems` is a set of paths an incompatibility names.
 */
export function diffTable(rows, {id, leftLabel = 'Old', rightLabel = 'New', problems} = {}) {
  const body = rows.map((r) => {
    const problem = problems?.has(keyOf(r.path));
    return h(
      'tr',
      {
        class: ['diff-row', kindClass(r.kind), problem ? 'problem' : null],
        data: {path: r.path, kind: r.kind},
      },
      h(
        'th',
        {scope: 'row', class: ['path', `d${Math.min(r.depth, 8)}`]},
        problem ? h('span', {class: 'warn-mark', title: 'named by an incompatibility'}, '⚠ ') : null,
        r.path,
      ),
      h('td', {class: 'left'}, sideCell(r.old, r.changes, 'left')),
      h('td', {class: 'right'}, sideCell(r.neu, r.changes, 'right')),
      h('td', {class: 'change'}, changeCell(r.changes, r.kind)),
    );
  });
  // Focusable so the keyboard can scroll it sideways on a narrow screen.
  return h(
    'div',
    {class: 'table-scroll', tabindex: '0', role: 'region', 'aria-label': `Field-by-field comparison: ${leftLabel} and ${rightLabel}`},
    h(
      'table',
      {class: 'diff-table', id},
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', {scope: 'col'}, 'Field path'),
          h('th', {scope: 'col'}, leftLabel),
          h('th', {scope: 'col'}, rightLabel),
          h('th', {scope: 'col'}, 'Change'),
        ),
      ),
      h('tbody', null, body),
    ),
  );
}

export function diffLegend() {
  const item = (cls, text) => h('li', null, h('span', {class: ['swatch', cls]}), text);
  return h(
    'ul',
    {class: 'legend', 'aria-label': 'Colours'},
    item('k-added', 'added'),
    item('k-removed', 'removed'),
    item('k-type', 'type changed'),
    item('k-null', 'nullability changed'),
    item('k-minor', 'doc, default, order or metadata'),
    item('k-same', 'unchanged'),
  );
}

/** "3 changes: 1 breaking, 2 compatible, 0 cosmetic" */
export function summaryText(summary) {
  if (!summary || !summary.total) return 'no changes';
  const n = summary.total;
  return `${n} change${n === 1 ? '' : 's'}: ${summary.breaking ?? 0} breaking, ${summary.compatible ?? 0} compatible, ${summary.cosmetic ?? 0} cosmetic`;
}

/**
 * A checker's location as a field path, by walking the schema JSON: Avro's
 * "/fields/2/type/items/fields/0/type" or JSON Schema's "#/properties/a/items". Null when it
 * does not resolve.
 */
export function locationToPath(schemaText, location) {
  if (!location || typeof location !== 'string') return null;
  let node;
  try {
    node = typeof schemaText === 'string' ? JSON.parse(schemaText) : schemaText;
  } catch {
    return null;
  }
  const segs = location
    .replace(/^#/, '')
    .split('/')
    .filter((x) => x !== '')
    .map((x) => x.replaceAll('~1', '/').replaceAll('~0', '~'));
  const parts = [];
  const suffix = (sfx) => {
    if (parts.length) parts[parts.length - 1] += sfx;
  };
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    if (node === null || typeof node !== 'object') return parts.length ? parts.join('.') : null;
    if (seg === 'fields' && Array.isArray(node.fields) && /^\d+$/.test(segs[i + 1] ?? '')) {
      const f = node.fields[Number(segs[++i])];
      if (!f) break;
      parts.push(String(f.name));
      node = f;
    } else if (seg === 'properties' && node.properties && segs[i + 1] !== undefined) {
      const name = segs[++i];
      parts.push(name);
      node = node.properties[name];
    } else if (seg === 'items') {
      suffix('[]');
      node = node.items;
    } else if (seg === 'values' || seg === 'additionalProperties') {
      suffix('{}');
      node = node[seg];
    } else {
      node = Array.isArray(node) ? node[Number(seg)] : node[seg];
    }
  }
  return parts.length ? parts.join('.') : null;
}

/**
 * Type and nullability changes between two trees, found here (for table versions, which have no
 * diff endpoint); additions and removals come from mergeRows itself.
 */
export function treeChanges(oldFields, newFields) {
  const olds = new Map(flatten(oldFields).map((e) => [keyOf(e.path), e.node]));
  const out = [];
  for (const {path, node} of flatten(newFields)) {
    const old = olds.get(keyOf(path));
    if (!old) continue;
    if (old.type !== node.type) out.push({path, kind: 'type_changed', from: old.type, to: node.type});
    if (Boolean(old.nullable) !== Boolean(node.nullable)) {
      out.push({
        path,
        kind: node.nullable ? 'nullability_relaxed' : 'nullability_tightened',
        from: old.nullable ? 'nullable' : 'not null',
        to: node.nullable ? 'nullable' : 'not null',
      });
    }
  }
  return out;
}
