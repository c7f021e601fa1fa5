"""A traced Python tool service: Apache's client (PyPI's pulsar-client) receives toolmesh tool-service
requests, OpenTelemetry's Python SDK reads each one's trace context from its properties (its own
propagators: W3C trace context by default) and serves it in a SERVER span under that context, sampled as
the SDK's default sampler decides (ParentBased(ALWAYS_ON): a sampled caller's trace is continued, an
unsampled one's is not recorded). Spans are kept in memory and printed at the end.

    python traced_service.py --url URL --request-topic TOPIC --response-topic TOPIC

Prints {"ready": true} once subscribed; answers each request with {"response": "echo: <arguments>",
"error": null} and the request's `id` property until stdin closes. The last stdout line is
{"ok": true, "requests": [...], "spans": [...]}: per request its properties and the remote span context
the SDK read (valid, trace and span ids, sampled), and every recorded span with its parent. Or
{"ok": false, "error": "..."} (exit 1).
"""

import argparse
import json
import sys
import threading
import uuid

import pulsar
from opentelemetry import propagate, trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


def options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--request-topic", required=True)
    parser.add_argument("--response-topic", required=True)
    return parser.parse_args()


def remote_context(properties):
    """The span context OpenTelemetry's propagators read off the request, as the caller sent it."""
    context = trace.get_current_span(propagate.extract(properties)).get_span_context()
    return {
        "valid": context.is_valid,
        "remote": context.is_remote,
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
        "sampled": context.trace_flags.sampled,
    }


def main():
    args = options()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()  # the SDK's default sampler: ParentBased(ALWAYS_ON)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("traced-service")
    client = pulsar.Client(args.url, logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Error))
    requests = []
    try:
        producer = client.create_producer(args.response_topic)

        def serve(consumer, message):
            properties = message.properties()
            consumer.acknowledge(message)
            parent = propagate.extract(properties)
            with tracer.start_as_current_span("python serve", context=parent, kind=trace.SpanKind.SERVER) as span:
                body = json.loads(message.data())
                reply = {"response": f"echo: {body['arguments']}", "error": None}
                # Recorded before the reply goes out: the test stops this script once it has every reply.
                requests.append({"properties": properties, "remote": remote_context(properties), "recording": span.is_recording()})
                producer.send(json.dumps(reply).encode(), properties={"id": properties["id"]})

        client.subscribe(args.request_topic, f"traced-service-{uuid.uuid4()}", message_listener=serve)
        print(json.dumps({"ready": True}), flush=True)
        done = threading.Event()
        threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
        done.wait()
        spans = [
            {
                "name": s.name,
                "trace_id": format(s.context.trace_id, "032x"),
                "span_id": format(s.context.span_id, "016x"),
                "parent_span_id": format(s.parent.span_id, "016x") if s.parent else None,
            }
            for s in exporter.get_finished_spans()
        ]
        print(json.dumps({"ok": True, "requests": requests, "spans": spans}))
    except Exception as err:  # the test reads the error from the last line
        print(json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"}))
        sys.exit(1)
    finally:
        client.close()


if __name__ == "__main__":
    main()
