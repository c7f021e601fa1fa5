"""A traced Python caller of a toolmesh tool service: OpenTelemetry's Python SDK makes each call's span and
writes its trace context into the request's properties (the SDK's own propagators: W3C trace context by
default, whatever OTEL_PROPAGATORS names otherwise), and Apache's client (PyPI's pulsar-client) sends the
request and waits for the reply.

    python traced_caller.py --url URL --request-topic TOPIC --response-topic TOPIC --calls JSON

--calls is a JSON list of {"sampled": true|false, "arguments": {...}}: a sampled call's span is recorded
(sampler ALWAYS_ON), an unsampled one's is not (ALWAYS_OFF), as a head-sampling front end decides. A call
with "traceparent": "..." sends that text as its traceparent instead (a broken peer's). The
last stdout line is {"ok": true, "calls": [{"trace_id", "span_id", "traceparent", "properties", "reply"}]} or
{"ok": false, "error": "..."} (exit 1).
"""

import argparse
import json
import sys
import time
import uuid

import pulsar
from opentelemetry import propagate, trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON


def options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--request-topic", required=True)
    parser.add_argument("--response-topic", required=True)
    parser.add_argument("--calls", required=True)
    parser.add_argument("--timeout-ms", type=int, default=15_000)
    return parser.parse_args()


def reply_to(consumer, request_id, timeout_ms):
    """The reply whose `id` property is the request's (replies to other callers are skipped)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0:
            raise TimeoutError(f"no reply to {request_id} within {timeout_ms} ms")
        message = consumer.receive(timeout_millis=left)
        consumer.acknowledge(message)
        if message.properties().get("id") == request_id:
            return json.loads(message.data())


def main():
    args = options()
    tracers = {
        True: TracerProvider(sampler=ALWAYS_ON).get_tracer("traced-caller"),
        False: TracerProvider(sampler=ALWAYS_OFF).get_tracer("traced-caller"),
    }
    client = pulsar.Client(args.url, logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Error))
    try:
        # Non-persistent topics keep nothing: subscribe to the replies before the first request goes out.
        consumer = client.subscribe(args.response_topic, f"traced-caller-{uuid.uuid4()}")
        producer = client.create_producer(args.request_topic)
        results = []
        for call in json.loads(args.calls):
            with tracers[call["sampled"]].start_as_current_span("python caller", kind=trace.SpanKind.CLIENT) as span:
                properties = {"id": str(uuid.uuid4())}
                propagate.inject(properties)
                if "traceparent" in call:
                    properties["traceparent"] = call["traceparent"]
                body = {"user": "python", "config": "{}", "arguments": json.dumps(call["arguments"])}
                producer.send(json.dumps(body).encode(), properties=properties)
                reply = reply_to(consumer, properties["id"], args.timeout_ms)
                context = span.get_span_context()
                results.append(
                    {
                        "trace_id": format(context.trace_id, "032x"),
                        "span_id": format(context.span_id, "016x"),
                        "traceparent": properties.get("traceparent"),
                        "properties": properties,
                        "reply": reply,
                    }
                )
        print(json.dumps({"ok": True, "calls": results}))
    except Exception as err:  # the test reads the error from the last line
        print(json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"}))
        sys.exit(1)
    finally:
        client.close()


if __name__ == "__main__":
    main()
