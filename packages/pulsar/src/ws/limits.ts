/**
 * How large a message the broker's WebSocket service takes. Two limits apply, both broker settings:
 * - `maxMessageSize` (Pulsar's default 5 MiB): the whole message, metadata and properties included. Over
 *   it, the proxy answers the send with an error (measured on 4.0: a 6 MiB limit refuses a payload with a
 *   36-character `id` property from 6,291,381 bytes on, i.e. 76 bytes of metadata and property).
 * - `webSocketMaxTextFrameSize` (Pulsar's default 1 MiB, `WebSocketProxyConfiguration`): the JSON text
 *   frame, in which the payload travels as base64 (4 bytes per 3). Over it, Jetty closes the session
 *   (1009/1006) and a producer that resends the frame on the next session never gets through.
 * toolmesh's deployments (infra/pulsar, infra/compose, infra/k8s) raise them to 6 MiB and 10 MiB, so
 * those are the defaults here; a broker left at Pulsar's defaults needs 5242880 and 1048576.
 */
export const DEFAULT_BROKER_MAX_MESSAGE_SIZE = 6 * 1024 * 1024;
export const DEFAULT_MAX_FRAME_SIZE = 10 * 1024 * 1024;

/** Room for the metadata the broker adds (producer name, sequence id, times: ~40 bytes measured). */
const METADATA_HEADROOM = 1024;
/** Room for the JSON around the payload in a frame (keys, context, escapes in properties). */
const FRAME_HEADROOM = 1024;

/** The largest message (`messageSize()`: payload + properties + key) both limits let through. */
export function webSocketMessageLimit(brokerMaxMessageSize: number, maxFrameSize: number): number {
  const byBroker = brokerMaxMessageSize - METADATA_HEADROOM;
  const byFrame = Math.floor((maxFrameSize - FRAME_HEADROOM) / 4) * 3;
  return Math.max(0, Math.min(byBroker, byFrame));
}
