"""Apache's official Pulsar client (the C++ client inside PyPI's pulsar-client) as a test peer.

    python apache_client.py MODE --url URL [--token T | --oauth2 JSON] [--ca FILE] --topic TOPIC [--count N] ...

MODE roundtrip: subscribe, produce N messages, receive and ack them; consume: subscribe, print
{"ready": true}, then receive N; produce: send N. Messages are b"message-<i>" with property i=<i>.
--oauth2 gives the client OAuth2 parameters ({"issuer_url", "private_key", "audience", "scope"}) instead
of a token: it fetches its own access token from the issuer.
The last stdout line is one JSON object: {"ok": true, ...} or {"ok": false, "error": "..."} (exit 1).
"""

import argparse
import json
import sys

import pulsar


def options():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["roundtrip", "consume", "produce"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--token")
    parser.add_argument("--oauth2", help="JSON parameters of pulsar.AuthenticationOauth2")
    parser.add_argument("--ca", help="PEM file of the CA that signed the broker's certificate")
    parser.add_argument("--count", type=int, default=3)
    parser.add_argument("--subscription", default="apache-client")
    parser.add_argument("--timeout-ms", type=int, default=10_000)
    return parser.parse_args()


def client(args):
    extra = {}
    if args.token:
        extra["authentication"] = pulsar.AuthenticationToken(args.token)
    if args.oauth2:
        extra["authentication"] = pulsar.AuthenticationOauth2(args.oauth2)
    if args.ca:
        extra["tls_trust_certs_file_path"] = args.ca
    return pulsar.Client(
        args.url,
        operation_timeout_seconds=max(1, args.timeout_ms // 1000),
        connection_timeout_ms=args.timeout_ms,
        logger=pulsar.ConsoleLogger(pulsar.LoggerLevel.Error),
        **extra,
    )


def produce(pulsar_client, args):
    producer = pulsar_client.create_producer(args.topic, batching_enabled=False)
    ids = [str(producer.send(f"message-{i}".encode(), properties={"i": str(i)})) for i in range(args.count)]
    producer.close()
    return ids


def receive(consumer, args):
    messages = []
    for _ in range(args.count):
        message = consumer.receive(timeout_millis=args.timeout_ms)
        consumer.acknowledge(message)
        messages.append({"payload": message.data().decode(), "properties": message.properties()})
    return messages


def main():
    args = options()
    pulsar_client = client(args)
    try:
        result = {"ok": True}
        if args.mode == "produce":
            result["sent"] = produce(pulsar_client, args)
        else:
            consumer = pulsar_client.subscribe(
                args.topic, args.subscription, initial_position=pulsar.InitialPosition.Earliest
            )
            if args.mode == "consume":
                print(json.dumps({"ready": True}), flush=True)
            else:
                result["sent"] = produce(pulsar_client, args)
            result["received"] = receive(consumer, args)
        print(json.dumps(result), flush=True)
    except Exception as error:  # the test reads the failure from stdout
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}), flush=True)
        sys.exit(1)
    finally:
        pulsar_client.close()


if __name__ == "__main__":
    main()
