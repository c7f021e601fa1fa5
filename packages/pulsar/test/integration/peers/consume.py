"""Consumes with Apache's C++ client (Python pulsar-client) and prints each message as a JSON line.
Usage: consume.py SERVICE_URL TOPIC COUNT. Prints "ready" once subscribed, exits after COUNT messages."""
import json
import sys

import pulsar

service_url, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
client = pulsar.Client(service_url, operation_timeout_seconds=30)
consumer = client.subscribe(topic, "python-peer", consumer_type=pulsar.ConsumerType.Exclusive)
print("ready", flush=True)
for _ in range(count):
    message = consumer.receive(timeout_millis=30_000)
    consumer.acknowledge(message)
    print(json.dumps({
        "payload": message.data().decode(),
        "properties": message.properties(),
        "key": message.partition_key(),
    }), flush=True)
client.close()
