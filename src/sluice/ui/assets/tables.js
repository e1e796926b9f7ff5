// Delta table pages: the list, a table's history timeline with each schema change, and the
// schema (tree, properties, constraints) at any version.

import {h, enc, link, get, fmtTime, fmtNum, table, section, empty, setTitle, badge, errorBox, router} from './lib.js';
import {schemaTree, rowsFromChanges, diffTable, summaryText, mergeRows, treeChanges, diffLegend} from './schema.js';

const tableHref = (name) => `/ui/tables/${enc(name)}`;
const tableVersionHref = (name, v) => `${tableHref(name)}/versions/${v}`;

function crumbs(...items) {
  const list = h('ol');
  items.forEach(([href, text], n) => {
    list.append(h('li', null, href && n < items.length - 1 ? link(href, text) : h('span', {'aria-current': 'page'}, text)));
  });
  return h('nav', {class: 'crumbs', 'aria-label': 'Breadcrumb'}, list);
}

export async function tablesPage() {
  setTitle('Tables');
  const tables = await get('/ui/api/tables');
  return [
    h('h1', null, 'Tables'),
    tables.length
      ? table(
          ['Table', 'Path', 'Version', 'Updated', 'Last operation'],
          tables.map((t) =>
            h(
              'tr',
              {class: 'table-row', data: {table: t.name}},
              h('th', {scope: 'row'}, link(tableHref(t.name), t.name)),
              h('td', {class: 'path-cell'}, t.path ?? ''),
              h('td', {class: 'num'}, t.version ?? '—'),
              h('td', null, fmtTime(t.updatedAt)),
              h('td', null, t.operation ?? ''),
            ),
          ),
        )
      : empty('No Delta table is configured (start the server with --ui-table NAME=PATH).'),
  ];
}

function rowsAdded(v) {
  if (v.rows_added !== null && v.rows_added !== undefined) return v.rows_added;
  const m = v.operation_metrics ?? {};
  return m.numOutputRows ?? m.numTargetRowsInserted ?? null;
}

function protocolText(p) {
  if (!p) return '';
  const one = (x) => {
    if (!x) return 'none';
    const feats = [...(x.readerFeatures ?? []), ...(x.writerFeatures ?? [])];
    return `(${x.minReaderVersion},${x.minWriterVersion})${feats.length ? ` ${[...new Set(feats)].join(', ')}` : ''}`;
  };
  return p.from ? `${one(p.from)} → ${one(p.to)}` : one(p.to);
}

/** One commit of the timeline; the schema change as diff rows. */
export function commitItem(name, v, {open = true} = {}) {
  const params = v.operation_parameters ?? {};
  const rows = rowsAdded(v);
  const sc = v.schema_change;
  const details = [];
  if (v.protocol) details.push(h('li', null, 'protocol: ', protocolText(v.protocol)));
  if (v.partition_columns) {
    details.push(
      h('li', null, `partition columns: [${(v.partition_columns.from ?? []).join(', ')}] → [${(v.partition_columns.to ?? []).join(', ')}]`),
    );
  }
  for (const pc of v.property_changes ?? []) {
    if (pc.to === null || pc.to === undefined) details.push(h('li', null, 'unset ', h('code', null, pc.key), ` (was ${pc.from})`));
    else details.push(h('li', null, 'set ', h('code', null, pc.key), ` = ${pc.to}`, pc.from !== null && pc.from !== undefined ? ` (was ${pc.from})` : ''));
  }
  if (v.schema_error) details.push(h('li', {class: 'bad'}, `schema does not parse: ${v.schema_error}`));
  if (v.previous_unknown) details.push(h('li', {class: 'muted'}, 'schema set (the version before is no longer in the log)'));
  for (const r of sc?.renames ?? []) details.push(h('li', null, 'renamed ', h('code', null, r.from), ' → ', h('code', null, r.to)));

  let schemaPart = null;
  if (sc) {
    const changes = sc.changes ?? [];
    const title = v.created
      ? `schema: created with ${sc.columns} column${sc.columns === 1 ? '' : 's'}`
      : `schema: ${summaryText(sc.summary)}`;
    schemaPart = changes.length
      ? h(
          'details',
          {class: 'schema-change', open},
          h('summary', null, title),
          diffTable(rowsFromChanges(changes), {leftLabel: 'Before', rightLabel: 'After'}),
        )
      : h('p', {class: 'schema-change'}, title);
  }

  return h(
    'li',
    {class: ['commit', sc ? 'schema-commit' : null], data: {version: v.version}},
    h(
      'div',
      {class: 'commit-head'},
      link(tableVersionHref(name, v.version), `version ${v.version}`, {class: 'commit-version'}),
      h('time', {datetime: v.timestamp ?? ''}, fmtTime(v.timestamp ?? v.timestamp_ms)),
      h('span', {class: 'op'}, v.operation || '(no commitInfo)', params.mode ? ` (${params.mode})` : ''),
      rows !== null && v.files_added ? h('span', {class: 'rows'}, `+${fmtNum(rows)} row${Number(rows) === 1 ? '' : 's'}`) : null,
      v.files_added ? h('span', {class: 'files'}, `${v.files_added} file${v.files_added === 1 ? '' : 's'}`) : null,
      v.files_removed ? h('span', {class: 'files'}, `-${v.files_removed} file${v.files_removed === 1 ? '' : 's'}`) : null,
      sc ? badge('schema', 'k-type') : null,
    ),
    details.length ? h('ul', {class: 'commit-details'}, details) : null,
    schemaPart,
  );
}

function kvTable(obj, empt, id) {
  const entries = Object.entries(obj ?? {});
  if (!entries.length) return empty(empt);
  return table(
    ['Name', 'Value'],
    entries.map(([k, v]) => h('tr', null, h('th', {scope: 'row'}, h('code', null, k)), h('td', null, h('code', null, typeof v === 'string' ? v : JSON.stringify(v))))),
    {id},
  );
}

function schemaSections(schema) {
  const p = schema.protocol ?? {};
  return [
    section('Schema', schema.fields?.length ? schemaTree(schema.fields) : empty('No columns.')),
    h(
      'div',
      {class: 'grid2'},
      section('Constraints', kvTable(schema.constraints, 'No CHECK constraints.', 'constraints')),
      section('Properties', kvTable(schema.properties, 'No table properties.', 'properties')),
    ),
    section(
      'Layout and protocol',
      h(
        'dl',
        {class: 'kv'},
        h('dt', null, 'Partition columns'),
        h('dd', null, schema.partitionColumns?.length ? schema.partitionColumns.join(', ') : 'none'),
        h('dt', null, 'Reader version'),
        h('dd', null, String(p.minReaderVersion ?? '—')),
        h('dt', null, 'Writer version'),
        h('dd', null, String(p.minWriterVersion ?? '—')),
        h('dt', null, 'Reader features'),
        h('dd', null, p.readerFeatures?.length ? p.readerFeatures.join(', ') : 'none'),
        h('dt', null, 'Writer features'),
        h('dd', null, p.writerFeatures?.length ? p.writerFeatures.join(', ') : 'none'),
      ),
    ),
  ];
}

const PAGE = 100;

/** The commits newest first, a hundred at a time so a long log stays quick to show. */
function timeline(name, versions) {
  const list = h('ol', {class: 'timeline', id: 'timeline'});
  let shown = 0;
  const more = h('button', {type: 'button', class: 'small', id: 'timeline-more'});
  const showMore = () => {
    const next = versions.slice(shown, shown + PAGE);
    list.append(...next.map((v) => commitItem(name, v)));
    shown += next.length;
    more.hidden = shown >= versions.length;
    more.textContent = `Show ${Math.min(PAGE, versions.length - shown)} older versions`;
  };
  more.addEventListener('click', showMore);
  showMore();
  return [list, more];
}

export async function tablePage(ctx) {
  const name = ctx.params[0];
  setTitle(name, 'Tables');
  const [history, schema] = await Promise.all([
    get(`/ui/api/tables/${enc(name)}/history`),
    get(`/ui/api/tables/${enc(name)}/schema`).catch((err) => ({error: err})),
  ]);
  const versions = history.versions ?? [];
  const schemaCommits = versions.filter((v) => v.schema_change).length;
  return [
    crumbs(['/ui/', 'Home'], ['/ui/tables', 'Tables'], [null, name]),
    h('h1', null, name),
    h(
      'p',
      {class: 'meta'},
      `${versions.length} version${versions.length === 1 ? '' : 's'} in the log · ${schemaCommits} changed the schema`,
      schema.version !== undefined ? ` · current version ${schema.version}` : '',
    ),
    h(
      'div',
      {class: 'split'},
      section(
        'History',
        versions.length ? timeline(name, versions) : empty('No versions.'),
      ),
      h('div', {class: 'current'}, schema.error ? errorBox(schema.error, 'Schema unavailable:') : schemaSections(schema)),
    ),
  ];
}

/** Any other version beside this one, aligned by column path (?compare=N keeps it in the URL). */
async function compareSection(name, schema, versions, other) {
  const here = schema.version;
  const choices = versions.filter((v) => String(v) !== String(here));
  if (!choices.length) return null;
  const sel = h(
    'select',
    {id: 'table-compare'},
    h('option', {value: ''}, 'choose a version'),
    choices.map((v) => h('option', {value: String(v)}, `version ${v}`)),
  );
  sel.value = other ?? '';
  sel.addEventListener('change', () =>
    router.go(`${tableVersionHref(name, here)}${sel.value ? `?compare=${encodeURIComponent(sel.value)}` : ''}`),
  );
  const head = h('div', {class: 'inline-form'}, h('label', {for: 'table-compare'}, 'Compare with '), sel);
  if (!other) return section('Compare', head);
  let body;
  try {
    const that = await get(`/ui/api/tables/${enc(name)}/schema?version=${enc(other)}`);
    const [older, newer] = Number(that.version) < Number(here) ? [that, schema] : [schema, that];
    const rows = mergeRows(older.fields, newer.fields, treeChanges(older.fields, newer.fields));
    body = [
      diffLegend(),
      diffTable(rows, {leftLabel: `version ${older.version}`, rightLabel: `version ${newer.version}`}),
    ];
  } catch (err) {
    body = errorBox(err, 'Could not compare:');
  }
  return section('Compare', head, body);
}

export async function tableVersionPage(ctx) {
  const [name, version] = ctx.params;
  setTitle(`${name} v${version}`, 'Tables');
  const [schema, history] = await Promise.all([
    get(`/ui/api/tables/${enc(name)}/schema?version=${enc(version)}`),
    get(`/ui/api/tables/${enc(name)}/history`).catch(() => ({versions: []})),
  ]);
  const versions = (history.versions ?? []).map((v) => v.version);
  const commit = (history.versions ?? []).find((v) => String(v.version) === String(version));
  const picker = h(
    'select',
    {id: 'table-version', value: String(version)},
    versions.map((v) => h('option', {value: String(v)}, `version ${v}`)),
  );
  picker.value = String(version);
  picker.addEventListener('change', () => router.go(tableVersionHref(name, picker.value)));
  const compareWith = ctx.query.get('compare');
  const compare = await compareSection(name, schema, versions, compareWith);
  return [
    crumbs(['/ui/', 'Home'], ['/ui/tables', 'Tables'], [tableHref(name), name], [null, `version ${schema.version ?? version}`]),
    h('h1', null, `${name} `, h('span', {class: 'muted'}, `version ${schema.version ?? version}`)),
    versions.length ? h('div', {class: 'inline-form'}, h('label', {for: 'table-version'}, 'Version '), picker) : null,
    commit ? section('This commit', h('ol', {class: 'timeline'}, commitItem(name, commit))) : null,
    compare,
    ...schemaSections(schema),
  ];
}
