import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

/**
 * The part of OTLP's trace protocol (opentelemetry-proto, collector/trace/v1 and trace/v1) a receiver needs
 * to read spans, written from its documented field numbers; unknown fields are skipped.
 */
const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; bytes bytes_value = 7; }
}
`;
const ExportRequest = protobuf.parse(PROTO).root.lookupType("otlp.ExportTraceServiceRequest");

export type AttributeValue = string | number | boolean;

/** One span as received: ids in hex (as OTLP/JSON carries them), the resource's service.name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  durationNs: number;
}

interface WireValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface WireSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: Array<{ key: string; value?: WireValue }>;
  status?: { code?: number };
}
interface WireRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value?: WireValue }> };
    scopeSpans?: Array<{ spans?: WireSpan[] }>;
  }>;
}

const valueOf = (v: WireValue | undefined): AttributeValue =>
  v?.stringValue ?? v?.boolValue ?? (v?.intValue !== undefined ? Number(v.intValue) : (v?.doubleValue ?? ""));
const attributesOf = (list: Array<{ key: string; value?: WireValue }> = []) =>
  Object.fromEntries(list.map((kv) => [kv.key, valueOf(kv.value)]));

/**
 * A tiny OTLP/HTTP trace receiver for tests: accepts `POST /v1/traces` in protobuf (the OTLP default) or
 * JSON, as an OpenTelemetry exporter sends them, and keeps every span.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Content types of the exports received (to show which encoding the exporters used). */
  readonly contentTypes = new Set<string>();
  private server: Server | undefined;
  /** Exports kept undecoded until read (see `deferDecoding`). */
  private readonly pending: Array<{ type: string; body: Buffer }> = [];
  url = "";

  /** `deferDecoding` keeps each export as received and decodes on `decodePending()` (a bench's sink decodes after measuring). */
  constructor(private readonly options: { deferDecoding?: boolean } = {}) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim();
        if (request.method !== "POST" || request.url !== "/v1/traces") {
          response.writeHead(404).end();
          return;
        }
        try {
          if (this.options.deferDecoding) this.pending.push({ type, body: Buffer.concat(chunks) });
          else this.accept(type, Buffer.concat(chunks));
          this.contentTypes.add(type);
        } catch (err) {
          response.writeHead(400, { "content-type": "text/plain" }).end(String(err));
          return;
        }
        // An empty ExportTraceServiceResponse: full success, in either encoding.
        if (type === "application/json") response.writeHead(200, { "content-type": "application/json" }).end("{}");
        else response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Decodes the exports kept by `deferDecoding`; returns how many spans there are now. */
  decodePending(): number {
    for (const { type, body } of this.pending.splice(0)) this.accept(type, body);
    return this.spans.length;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(type: string, body: Buffer): void {
    let request: WireRequest;
    if (type === "application/x-protobuf") {
      request = ExportRequest.toObject(ExportRequest.decode(body), { longs: String, bytes: String, defaults: false }) as WireRequest;
      // bytes: String gives base64; OTLP/JSON and everyone reading traces use hex.
      const hex = (b64?: string) => Buffer.from(b64 ?? "", "base64").toString("hex");
      for (const rs of request.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const span of ss.spans ?? [])
            Object.assign(span, { traceId: hex(span.traceId), spanId: hex(span.spanId), parentSpanId: hex(span.parentSpanId) });
    } else if (type === "application/json") {
      request = JSON.parse(body.toString("utf8")) as WireRequest;
    } else {
      throw new Error(`unsupported content type '${type}'`);
    }
    for (const rs of request.resourceSpans ?? []) {
      const service = String(attributesOf(rs.resource?.attributes)["service.name"] ?? "");
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId ?? "",
            spanId: span.spanId ?? "",
            parentSpanId: span.parentSpanId ?? "",
            name: span.name ?? "",
            kind: span.kind ?? 0,
            attributes: attributesOf(span.attributes),
            statusCode: span.status?.code ?? 0,
            durationNs: Number(span.endTimeUnixNano ?? 0) - Number(span.startTimeUnixNano ?? 0),
          });
        }
      }
    }
  }
}
