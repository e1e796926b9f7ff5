// Produce Avro records to Kafka as a kafkajs application does: register the schema with
// @kafkajs/confluent-schema-registry, encode each record in the Confluent wire format (magic byte
// 0, the schema id, the Avro body) and send them with kafkajs. Prints {"id":..,"count":..}.
//
//   node produce.mjs --brokers B --registry URL --topic T --subject S --schema FILE.avsc
//                    --records FILE.jsonl [--key FIELD] [--partition N]
//
// Records are JSON lines as the application holds them (avsc's view: a ["null", T] union is the
// bare value). --key sends the record's FIELD, as a string, as the message key; --partition
// pins every message to one partition, else kafkajs' default partitioner (murmur2 of the key,
// as Java's) chooses.
//
// Against librdkafka 2.0.2's mock cluster (sluice-mock-kafka) kafkajs 2.2.4 works with plain
// settings: acks -1, the default partitioner, with or without compression. What does not work:
// - idempotent: true, and admin.createTopics: both go to the controller, and the mock names
//   controller 0, which no broker is ("Broker 0 not found in the cached metadata"). Hence
//   idempotent: false, and topics are created by sluice-mock-kafka --topic.
// - allowAutoTopicCreation: false does not stop the mock creating a topic the producer names
//   (seen with kafkajs 2.2.4): a misspelt --topic lands in a new topic, not in an error.
import { readFileSync } from "node:fs";
import { Kafka, Partitioners, logLevel } from "kafkajs";
import { SchemaRegistry, SchemaType } from "@kafkajs/confluent-schema-registry";

function parseArgs(argv) {
  const names = ["brokers", "registry", "topic", "subject", "schema", "records", "key", "partition"];
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, "");
    if (!names.includes(name) || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    args[name] = argv[i + 1];
  }
  for (const required of ["brokers", "registry", "topic", "subject", "schema", "records"]) {
    if (!args[required]) throw new Error(`--${required} is required`);
  }
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const partition = args.partition === undefined ? undefined : Number(args.partition);
  const records = readFileSync(args.records, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

  const registry = new SchemaRegistry({ host: args.registry });
  const { id } = await registry.register(
    { type: SchemaType.AVRO, schema: readFileSync(args.schema, "utf8") },
    { subject: args.subject },
  );
  const messages = [];
  for (const record of records) {
    const message = { value: await registry.encode(id, record) };
    if (args.key !== undefined) {
      const key = record[args.key];
      message.key = key === null || key === undefined ? null : String(key);
    }
    if (partition !== undefined) message.partition = partition;
    messages.push(message);
  }

  const kafka = new Kafka({
    clientId: "sluice-produce",
    brokers: args.brokers.split(","),
    logLevel: logLevel.WARN,
    retry: { retries: 3 },
  });
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
    idempotent: false,
  });
  await producer.connect();
  try {
    for (let i = 0; i < messages.length; i += 500) {
      await producer.send({ topic: args.topic, acks: -1, messages: messages.slice(i, i + 500) });
    }
  } finally {
    await producer.disconnect();
  }
  process.stdout.write(JSON.stringify({ id, count: messages.length }) + "\n");
}

main().catch((err) => {
  process.stderr.write(`produce.mjs: ${err.stack || err}\n`);
  process.exit(1);
});
