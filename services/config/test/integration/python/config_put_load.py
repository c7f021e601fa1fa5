"""Concurrent config puts on TrustGraph's wire through Apache's official client (PyPI's pulsar-client, C++
inside; its producer batches here), as a Python service would send them.

    python config_put_load.py --url URL --request-topic T --response-topic T --workspace WS [--workers N]

Subscribes to the replies, prints {"ready": true}, then each worker puts a key of its own (type `load`,
key w<worker>-<i>) and waits for the reply whose `id` property is its request's, one after another, until
stdin closes. The last stdout line is one JSON object:
{"ok": true, "sent": N, "acked": [[key, value, version], ...], "errors": [...], "timeouts": [...],
 "duplicates": N, "strays": N}, or {"ok": false, "error": "..."} (exit 1).
"""

import argparse
import json
import os
import sys
import threading
import uuid

import pulsar


def options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--request-topic", required=True)
    parser.add_argument("--response-topic", required=True)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--timeout-ms", type=int, default=20_000)
    return parser.parse_args()


class Replies:
    """Routes each reply to the worker waiting for its `id`; counts replies to nobody's and second ones."""

    def __init__(self):
        self.lock = threading.Lock()
        self.waiting = {}
        self.answered = set()
        self.duplicates = 0
        self.strays = 0

    def expect(self, request_id):
        slot = {"event": threading.Event(), "reply": None}
        with self.lock:
            self.waiting[request_id] = slot
        return slot

    def forget(self, request_id):
        with self.lock:
            self.waiting.pop(request_id, None)

    def on_message(self, consumer, message):
        consumer.acknowledge(message)
        request_id = message.properties().get("id")
        with self.lock:
            slot = self.waiting.pop(request_id, None)
            if slot is None:
                if request_id in self.answered:
                    self.duplicates += 1
                else:
                    self.strays += 1
                return
            self.answered.add(request_id)
        slot["reply"] = json.loads(message.data())
        slot["event"].set()


def worker(n, args, producer, replies, stopping, outcome, tally):
    def record(field, item=None):
        with tally:
            if item is None:
                outcome[field] += 1
            else:
                outcome[field].append(item)

    i = 0
    while not stopping.is_set():
        key, value = f"w{n}-{i}", json.dumps({"worker": n, "i": i})
        i += 1
        request_id = str(uuid.uuid4())
        body = {"operation": "put", "workspace": args.workspace, "values": [{"type": "load", "key": key, "value": value}]}
        slot = replies.expect(request_id)
        try:
            producer.send(json.dumps(body).encode(), properties={"id": request_id})
        except Exception as err:  # a send the client itself failed: counted, not fatal
            replies.forget(request_id)
            record("errors", f"{key}: send: {type(err).__name__}: {err}")
            continue
        record("sent")
        if not slot["event"].wait(args.timeout_ms / 1000):
            replies.forget(request_id)
            record("timeouts", key)
        elif slot["reply"].get("error"):
            error = slot["reply"]["error"]
            record("errors", f"{key}: {error.get('type')}: {error.get('message')}")
        else:
            record("acked", [key, value, slot["reply"].get("version")])


def main():
    args = options()
    client = pulsar.Client(args.url, logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Error))
    try:
        replies = Replies()
        # Non-persistent topics keep nothing: subscribe to the replies before the first request goes out.
        client.subscribe(
            args.response_topic,
            f"config-put-load-{uuid.uuid4()}",
            consumer_type=pulsar.ConsumerType.Exclusive,
            message_listener=replies.on_message,
        )
        producer = client.create_producer(args.request_topic, batching_enabled=True, batching_max_publish_delay_ms=5)
        stopping = threading.Event()
        outcome, tally = {"sent": 0, "acked": [], "errors": [], "timeouts": []}, threading.Lock()
        threads = [
            threading.Thread(target=worker, args=(n, args, producer, replies, stopping, outcome, tally))
            for n in range(args.workers)
        ]
        for thread in threads:
            thread.start()
        print(json.dumps({"ready": True}), flush=True)
        sys.stdin.read()
        stopping.set()
        for thread in threads:
            thread.join()
        producer.close()
        with replies.lock:
            print(json.dumps({"ok": True, **outcome, "duplicates": replies.duplicates, "strays": replies.strays}), flush=True)
    except Exception as err:  # the test reads the failure from the last line
        print(json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"}), flush=True)
        sys.stdout.flush()
        os._exit(1)
    # Leave without the interpreter's teardown, where the C++ client's threads sometimes abort the process
    # after a clean run ("terminate called without an active exception"); everything is printed.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
