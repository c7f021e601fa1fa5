"""Produces large messages with Apache's C++ client (Python pulsar-client) with chunking on, so each is split
into chunks no larger than the broker's maxMessageSize. Usage: produce_chunked.py SERVICE_URL TOPIC COUNT
SIZE_BYTES CODEC. Payloads are pseudo-random (they do not compress below the limit). Prints one line per
message, "<i> <sha256 hex>", then "sent N" when all are stored."""
import hashlib
import random
import sys

import pulsar

service_url, topic, count, size, codec = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
client = pulsar.Client(service_url, operation_timeout_seconds=60)
producer = client.create_producer(
    topic,
    chunking_enabled=True,
    batching_enabled=False,
    compression_type=getattr(pulsar.CompressionType, codec),
)
for i in range(count):
    payload = random.Random(i).randbytes(size)
    producer.send(payload, properties={"i": str(i), "peer": "python", "codec": codec}, partition_key=f"big-{i}")
    print(f"{i} {hashlib.sha256(payload).hexdigest()}", flush=True)
producer.flush()
client.close()
print(f"sent {count}", flush=True)
