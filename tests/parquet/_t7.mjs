import * as A from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { tableOf, field, list, map } from './arrow_build.mjs';
import { writeFileSync } from 'node:fs';
const fields = [
  field('u', new A.FixedSizeBinary(16), true, new Map([['ARROW:extension:name', 'arrow.uuid']])),
  field('l', list(new A.Int32(), 'item')),
  field('m', map(new A.Utf8(), new A.Int32(), 'entries')),
  field('t', new A.TimestampNanosecond('UTC')),
  field('r', new A.Int32(), false),
];
const t = tableOf(fields, [{u: new Uint8Array(16).fill(7), l: [1, null], m: [['a', 1]], t: 1773480413123456789n, r: 5}, {u: null, l: null, m: [], t: -1n, r: 6}]);
const wt = pw.Table.fromIPCStream(A.tableToIPC(t, 'stream'));
const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.LZ4).setWriterVersion(pw.WriterVersion.V2).build();
writeFileSync('/tmp/pqx/a1.parquet', pw.writeParquet(wt, props));
