// A producer and a consumer as kafkajs applications write them, with
// @kafkajs/confluent-schema-registry (and avsc underneath). The end-to-end test
// (tests/registry/kafkajs_e2e.py) runs it against `sluice registry serve`:
//
//   node client.mjs register URL SUBJECT SCHEMA.avsc [REFS.json]
//                                                         prints {"id": N}; REFS.json holds
//                                                         [{"name","subject","version"}, ...]
//   node client.mjs latest URL SUBJECT                    prints {"id": N}
//   node client.mjs encode URL ID IN.jsonl OUT.bin        one framed message per record
//   node client.mjs decode URL IN.bin OUT.jsonl           one JSON record per message
//
// OUT.bin / IN.bin hold the messages length-prefixed: a 4-byte big-endian length, then the
// message (magic byte 0, 4-byte schema id, Avro binary), as `sluice decode` reads them.
import { readFileSync, writeFileSync } from "node:fs";
import { SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";

const [command, url, ...rest] = process.argv.slice(2);
const registry = new SchemaRegistry({ host: url });

function readMessages(path) {
  const data = readFileSync(path);
  const messages = [];
  for (let at = 0; at < data.length;) {
    const length = data.readUInt32BE(at);
    messages.push(data.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return messages;
}

function writeMessages(path, messages) {
  const parts = [];
  for (const m of messages) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(m.length);
    parts.push(length, m);
  }
  writeFileSync(path, Buffer.concat(parts));
}

async function main() {
  switch (command) {
    case "register": {
      const [subject, file, refsFile] = rest;
      const schema = readFileSync(file, "utf8");
      const request = { type: SchemaType.AVRO, schema };
      if (refsFile) request.references = JSON.parse(readFileSync(refsFile, "utf8"));
      const { id } = await registry.register(request, { subject });
      console.log(JSON.stringify({ id }));
      break;
    }
    case "latest": {
      const id = await registry.getLatestSchemaId(rest[0]);
      console.log(JSON.stringify({ id }));
      break;
    }
    case "encode": {
      const [id, input, output] = rest;
      const records = readFileSync(input, "utf8").split("\n").filter((l) => l.length > 0);
      const messages = [];
      for (const line of records) messages.push(await registry.encode(Number(id), JSON.parse(line)));
      writeMessages(output, messages);
      break;
    }
    case "decode": {
      const [input, output] = rest;
      const lines = [];
      for (const m of readMessages(input)) lines.push(JSON.stringify(await registry.decode(m)));
      writeFileSync(output, lines.map((l) => l + "\n").join(""));
      break;
    }
    default:
      throw new Error(`unknown command ${command}`);
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
