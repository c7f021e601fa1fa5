"""The bench's external anchor: the raw round trip with Apache's official C++ client (PyPI pulsar-client).

    python official_raw.py server URL REQUEST_TOPIC RESPONSE_TOPIC SUBSCRIPTION
    python official_raw.py client URL REQUEST_TOPIC RESPONSE_TOPIC SUBSCRIPTION

Same workload as the bench's other raw rows (bench/src/workload.ts): a tool-service request with
distinct arguments per call, the answer "ok <n> <q>", correlation by the `id` property, one ack per
received message, producers without batching. Both print {"ready": true} once subscribed and stop when
stdin closes. The client then reads one JSON command per line,
{"concurrency": c, "calls": n, "offset": o, "capMs": cap}, runs a closed loop of c calls in flight
(each reply sends the next request) and prints {"latenciesMs": [...], "errors": k, "firstError": "...",
"capped": bool, "wallMs": w}. The loop runs here, so what is measured is the client, not a pipe to Node.
"""

import json
import sys
import threading
import time
import uuid

import pulsar


def answer(args):
    return f"ok {args['n']} {args['q']}"


def connect(url):
    return pulsar.Client(url, logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Error))


def serve(url, request_topic, response_topic, subscription):
    client = connect(url)
    producer = client.create_producer(response_topic, batching_enabled=False)

    def on_request(consumer, message):
        consumer.acknowledge(message)
        request_id = message.properties().get("id")
        if not request_id:
            return
        args = json.loads(json.loads(message.data())["arguments"])
        reply = {"error": None, "response": answer(args), "end_of_stream": True}
        producer.send_async(json.dumps(reply).encode(), lambda result, message_id: None, properties={"id": request_id})

    client.subscribe(
        request_topic,
        subscription,
        consumer_type=pulsar.ConsumerType.Shared,
        receiver_queue_size=1000,
        message_listener=on_request,
    )
    return client


class Loop:
    """A closed loop of `concurrency` calls in flight; every reply (or failed send) starts the next call."""

    def __init__(self, url, request_topic, response_topic, subscription):
        self.client = connect(url)
        # Reentrant: a send that fails at once may call back on this thread while the lock is held.
        self.lock = threading.RLock()
        self.pending = {}
        self.client.subscribe(
            response_topic,
            subscription,
            consumer_type=pulsar.ConsumerType.Exclusive,
            receiver_queue_size=1000,
            message_listener=self.on_reply,
        )
        self.producer = self.client.create_producer(request_topic, batching_enabled=False)

    def run(self, concurrency, calls, offset, cap_ms):
        self.calls, self.offset, self.started, self.finished = calls, offset, 0, 0
        self.latencies, self.errors, self.first_error = [], 0, None
        self.done = threading.Event()
        begin = time.perf_counter()
        self.deadline = begin + cap_ms / 1000
        with self.lock:
            for _ in range(min(concurrency, calls)):
                self.start_next()
        # Each call has 10 s to answer; past the cap no new call starts.
        self.done.wait(cap_ms / 1000 + 10)
        wall_ms = (time.perf_counter() - begin) * 1000
        with self.lock:
            lost = len(self.pending)
            self.pending.clear()
            capped = self.started < self.calls
            self.calls = self.started  # late replies and sends start nothing more
        if lost:
            self.fail(f"{lost} calls got no reply")
        return {
            "latenciesMs": self.latencies,
            "errors": self.errors,
            "firstError": self.first_error,
            "capped": capped,
            "wallMs": wall_ms,
        }

    def fail(self, error):
        self.errors += 1
        self.first_error = self.first_error or error

    def start_next(self):  # holding the lock
        if self.started >= self.calls or time.perf_counter() > self.deadline:
            if not self.pending:
                self.done.set()
            return
        i = self.offset + self.started
        self.started += 1
        request_id = uuid.uuid4().hex
        self.pending[request_id] = (i, time.perf_counter())
        body = {"user": "bench", "config": "{}", "arguments": json.dumps({"n": i, "q": f"query-{i}"})}
        self.producer.send_async(
            json.dumps(body).encode(), lambda result, message_id: self.on_sent(request_id, result), properties={"id": request_id}
        )

    def on_sent(self, request_id, result):
        if result == pulsar.Result.Ok:
            return
        with self.lock:
            if self.pending.pop(request_id, None) is not None:
                self.fail(f"send failed: {result}")
                self.start_next()

    def on_reply(self, consumer, message):
        consumer.acknowledge(message)
        now = time.perf_counter()
        with self.lock:
            call = self.pending.pop(message.properties().get("id"), None)
            if call is None:
                return
            i, sent_at = call
            body = json.loads(message.data())
            if body.get("response") == answer({"n": i, "q": f"query-{i}"}):
                self.latencies.append((now - sent_at) * 1000)
            else:
                self.fail(f"call {i}: unexpected reply {json.dumps(body)[:200]}")
            self.start_next()


def main():
    role, url, request_topic, response_topic, subscription = sys.argv[1:6]
    if role == "server":
        client = serve(url, request_topic, response_topic, subscription)
        print(json.dumps({"ready": True}), flush=True)
        sys.stdin.read()  # until the bench closes stdin
    else:
        loop = Loop(url, request_topic, response_topic, subscription)
        client = loop.client
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            command = json.loads(line)
            result = loop.run(command["concurrency"], command["calls"], command["offset"], command["capMs"])
            print(json.dumps(result), flush=True)
    client.close()


if __name__ == "__main__":
    main()
