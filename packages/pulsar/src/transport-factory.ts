import type { Logger } from "pino";
import { BinaryTransport, type BinaryTransportOptions } from "./binary/transport.js";
import { authTokenOf } from "./auth/auth-token.js";
import type { TlsSettings, Transport } from "./transport.js";
import { WebSocketTransport } from "./ws/transport.js";

export type TransportKind = "binary" | "websocket";

export interface TransportSettings {
  /** pulsar://host:port or pulsar+ssl://host:port: selects the binary protocol. */
  serviceUrl?: string;
  /** The broker's web service (http://host:8080): the WebSocket API, when no service URL is given. */
  webServiceUrl?: string;
  /** Forces a transport; by default binary when serviceUrl is given, else WebSocket. */
  kind?: TransportKind;
  /** Token authentication (binary CONNECT and challenges; `Authorization: Bearer` on WebSocket sessions and admin calls). */
  authToken?: BinaryTransportOptions["authToken"];
  /** TLS options for pulsar+ssl:// (binary) and https:// (the WebSocket API and admin calls). */
  tls?: TlsSettings;
  sendTimeoutMs?: number;
  pingIntervalMs?: number;
  receiverQueueSize?: number;
  /** The broker's `maxMessageSize`, for the WebSocket transport's size limit (see ws/limits.ts); binary reads it from CONNECTED. */
  brokerMaxMessageSize?: number;
  /** The broker's `webSocketMaxTextFrameSize`, for the WebSocket transport's size limit. */
  webSocketMaxFrameSize?: number;
}

/** The one selection rule: a service URL means the binary protocol unless WebSocket is asked for. */
export function transportKind(settings: Pick<TransportSettings, "serviceUrl" | "kind">): TransportKind {
  return settings.kind ?? (settings.serviceUrl ? "binary" : "websocket");
}

export function createTransport(settings: TransportSettings, logger: Logger): Transport {
  if (transportKind(settings) === "binary") {
    if (!settings.serviceUrl) throw new Error("the binary transport needs a service URL (pulsar://host:6650)");
    return new BinaryTransport({
      serviceUrl: settings.serviceUrl,
      logger,
      authToken: settings.authToken,
      tls: settings.tls,
      sendTimeoutMs: settings.sendTimeoutMs,
      keepAliveIntervalMs: settings.pingIntervalMs,
      receiverQueueSize: settings.receiverQueueSize,
    });
  }
  if (!settings.webServiceUrl) throw new Error("the WebSocket transport needs the broker's web service URL (http://host:8080)");
  return new WebSocketTransport({
    webServiceUrl: settings.webServiceUrl,
    logger,
    sendTimeoutMs: settings.sendTimeoutMs,
    pingIntervalMs: settings.pingIntervalMs,
    brokerMaxMessageSize: settings.brokerMaxMessageSize,
    maxFrameSize: settings.webSocketMaxFrameSize,
    authToken: authTokenOf(settings),
    tls: settings.tls,
  });
}
