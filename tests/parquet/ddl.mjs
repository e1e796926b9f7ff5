// A small reader of Spark DDL column lists ("a INT NOT NULL, b STRUCT<c: ARRAY<DOUBLE>>"), into
// the model types readers.mjs uses. compare.mjs uses it to know which values are float32 or
// float64 (compared by value) and to name columns. Beyond Spark's names it accepts the leaf types
// of sluice's model that Spark DDL lacks: TIME, UUID, TIMESTAMP(3|6|9), TIMESTAMP_NTZ(3|6|9).

const LEAVES = {
  BOOLEAN: 'boolean', TINYINT: 'int8', BYTE: 'int8', SMALLINT: 'int16', SHORT: 'int16',
  INT: 'int32', INTEGER: 'int32', BIGINT: 'int64', LONG: 'int64', FLOAT: 'float32',
  REAL: 'float32', DOUBLE: 'float64', STRING: 'string', VARCHAR: 'string', CHAR: 'string',
  BINARY: 'binary', DATE: 'date', UUID: 'uuid',
};

function tokenize(text) {
  const tokens = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) i++;
    else if (c === '`') {
      let j = i + 1;
      let name = '';
      for (;;) {
        if (j >= text.length) throw new Error(`ddl: unterminated \` at ${i}`);
        if (text[j] === '`') {
          if (text[j + 1] === '`') {
            name += '`';
            j += 2;
            continue;
          }
          break;
        }
        name += text[j++];
      }
      tokens.push({ kind: 'name', text: name, quoted: true });
      i = j + 1;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      tokens.push({ kind: 'string', text: text.slice(i + 1, j) });
      i = j + 1;
    } else if (/[A-Za-z0-9_]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j])) j++;
      tokens.push({ kind: 'name', text: text.slice(i, j) });
      i = j;
    } else {
      tokens.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return tokens;
}

/** Parse a column list into { kind: 'struct', fields: [{name, type, nullable}] }. */
export function parseDdl(text) {
  const t = tokenize(text);
  let p = 0;
  const peek = () => t[p];
  const isWord = (w) => peek() && peek().kind === 'name' && !peek().quoted && peek().text.toUpperCase() === w;
  const expect = (s) => {
    if (!peek() || peek().text !== s) throw new Error(`ddl: expected '${s}' at token ${p}`);
    p++;
  };
  const number = () => {
    const n = peek();
    if (!n || !/^[0-9]+$/.test(n.text)) throw new Error(`ddl: expected a number at token ${p}`);
    p++;
    return Number(n.text);
  };
  const field = (colon) => {
    const name = t[p++];
    if (!name || name.kind !== 'name') throw new Error(`ddl: expected a field name at token ${p}`);
    if (colon && peek()?.text === ':') p++;
    const type = dataType();
    let nullable = true;
    for (;;) {
      if (isWord('NOT')) {
        p++;
        if (!isWord('NULL')) throw new Error(`ddl: expected NULL at token ${p}`);
        p++;
        nullable = false;
      } else if (isWord('COMMENT')) {
        p += 2;
      } else break;
    }
    return { name: name.text, type, nullable };
  };
  const dataType = () => {
    const w = t[p++];
    if (!w || w.kind !== 'name') throw new Error(`ddl: expected a type at token ${p}`);
    const kw = w.text.toUpperCase();
    if (kw === 'ARRAY') {
      expect('<');
      const element = dataType();
      expect('>');
      return { kind: 'array', element };
    }
    if (kw === 'MAP') {
      expect('<');
      const key = dataType();
      expect(',');
      const value = dataType();
      expect('>');
      return { kind: 'map', key, value };
    }
    if (kw === 'STRUCT') {
      expect('<');
      const fields = [];
      while (peek()?.text !== '>') {
        fields.push(field(true));
        if (peek()?.text === ',') p++;
      }
      expect('>');
      return { kind: 'struct', fields };
    }
    if (kw === 'DECIMAL' || kw === 'DEC' || kw === 'NUMERIC') {
      let precision = 10;
      let scale = 0;
      if (peek()?.text === '(') {
        p++;
        precision = number();
        if (peek()?.text === ',') {
          p++;
          scale = number();
        }
        expect(')');
      }
      return { kind: 'decimal', precision, scale };
    }
    if (kw === 'TIMESTAMP' || kw === 'TIMESTAMP_LTZ' || kw === 'TIMESTAMP_NTZ' || kw === 'TIME') {
      let digits = 6;
      if (peek()?.text === '(') {
        p++;
        digits = number();
        expect(')');
      }
      const unit = { 3: 'ms', 6: 'us', 9: 'ns' }[digits];
      if (!unit) throw new Error(`ddl: ${kw}(${digits})`);
      if (kw === 'TIME') return { kind: 'time', unit };
      return { kind: 'timestamp', unit, utc: kw !== 'TIMESTAMP_NTZ' };
    }
    if (LEAVES[kw]) {
      if (peek()?.text === '(') {
        p++;
        number();
        expect(')');
      }
      return { kind: LEAVES[kw] };
    }
    throw new Error(`ddl: unknown type ${w.text}`);
  };
  // DataType.fromDDL accepts a single STRUCT<...> as well as a column list.
  if (isWord('STRUCT') && t[p + 1]?.text === '<') {
    const s = dataType();
    if (p !== t.length) throw new Error('ddl: trailing tokens');
    return s;
  }
  const fields = [];
  while (p < t.length) {
    fields.push(field(false));
    if (p < t.length) expect(',');
  }
  return { kind: 'struct', fields };
}
