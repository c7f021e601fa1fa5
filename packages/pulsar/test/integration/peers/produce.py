"""Produces numbered messages with Apache's C++ client (Python pulsar-client): batching and compression
as asked. Usage: produce.py SERVICE_URL TOPIC COUNT CODEC BATCHING. Prints "sent N" when all are stored."""
import sys

import pulsar

service_url, topic, count, codec, batching = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5] == "true"
client = pulsar.Client(service_url, operation_timeout_seconds=30)
producer = client.create_producer(
    topic,
    compression_type=getattr(pulsar.CompressionType, codec),
    batching_enabled=batching,
    # Large batches held long enough that the whole run goes out in a few of them.
    batching_max_messages=1000,
    batching_max_publish_delay_ms=200,
)
failures = []
for i in range(count):
    # Repetitive text compresses; the index keeps every payload different.
    payload = f'{{"i": {i}, "text": "{"toolmesh " * 40}"}}'.encode()
    producer.send_async(
        payload,
        lambda result, _id: failures.append(result) if result != pulsar.Result.Ok else None,
        properties={"i": str(i), "peer": "python", "codec": codec},
        partition_key=f"key-{i % 3}",
    )
producer.flush()
client.close()
if failures:
    sys.exit(f"{len(failures)} sends failed: {failures[0]}")
print(f"sent {count}", flush=True)
