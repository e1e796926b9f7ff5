"""Read a whole Kafka topic with confluent-kafka (Debian's python3-confluent-kafka) and check the
messages are Confluent-framed: magic byte 0 and the expected schema id. Every partition is read
from its start to its end (assign, no group offsets).

    /usr/bin/python3 tests/ingest/kafka_check.py --brokers B --topic T --count N --schema-id ID
        [--partition P] [--keys]

--partition: every message must sit in P. --keys: the keys must be "1".."N" (each once).
Prints a JSON summary; exit 0 when all holds, 1 otherwise, 77 without confluent_kafka.
"""

import argparse
import json
import struct
import sys
import time

try:
    from confluent_kafka import Consumer, KafkaError, TopicPartition
except ImportError:
    print("kafka_check: python3-confluent-kafka missing; skipped")
    sys.exit(77)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--brokers", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--schema-id", type=int, required=True)
    parser.add_argument("--partition", type=int)
    parser.add_argument("--keys", action="store_true")
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()

    consumer = Consumer({
        "bootstrap.servers": args.brokers,
        "group.id": "sluice-kafka-check",
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "auto.offset.reset": "earliest",
    })
    metadata = consumer.list_topics(args.topic, timeout=10)
    partitions = sorted(metadata.topics[args.topic].partitions)
    consumer.assign([TopicPartition(args.topic, p, 0) for p in partitions])

    at_end, per_partition, keys, problems = set(), {}, [], []
    deadline = time.monotonic() + args.timeout
    while len(at_end) < len(partitions) and time.monotonic() < deadline:
        message = consumer.poll(0.2)
        if message is None:
            continue
        if message.error():
            if message.error().code() == KafkaError._PARTITION_EOF:
                at_end.add(message.partition())
                continue
            problems.append(str(message.error()))
            break
        at_end.discard(message.partition())
        per_partition[message.partition()] = per_partition.get(message.partition(), 0) + 1
        value = message.value() or b""
        where = f"{args.topic}[{message.partition()}]@{message.offset()}"
        if len(value) < 5:
            problems.append(f"{where}: {len(value)} bytes, no Confluent header")
            continue
        magic, schema_id = struct.unpack(">bI", value[:5])
        if magic != 0 or schema_id != args.schema_id:
            problems.append(f"{where}: magic {magic} schema id {schema_id}, "
                            f"expected 0 and {args.schema_id}")
        if args.partition is not None and message.partition() != args.partition:
            problems.append(f"{where}: expected partition {args.partition}")
        keys.append(message.key().decode() if message.key() is not None else None)
    consumer.close()

    total = sum(per_partition.values())
    if len(at_end) < len(partitions):
        problems.append(f"ends of {len(partitions) - len(at_end)} partition(s) not reached "
                        f"in {args.timeout} s")
    if total != args.count:
        problems.append(f"{total} messages, expected {args.count}")
    if args.keys and sorted(keys, key=lambda k: int(k or 0)) != [
            str(i) for i in range(1, args.count + 1)]:
        problems.append("keys are not 1..N, each once")
    print(json.dumps({"count": total, "partitions": per_partition, "problems": problems[:10]}))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
