import type { MessageId } from "./message-id.js";

/**
 * One chunk of a message a producer split because it was larger than the broker's maxMessageSize (Apache's
 * clients with chunking enabled, on a persistent topic). Every chunk carries the message's uuid, its place
 * (`chunkId` of `numChunks`) and the size of the whole (still compressed) payload.
 */
export interface Chunk {
  uuid: string;
  chunkId: number;
  numChunks: number;
  totalSize: number;
  id: MessageId;
  payload: Buffer;
  publishTimeMs: number;
}

/** What became of chunks that were given up: acked (never coming back whole) or to be redelivered. */
export interface DroppedChunks {
  ids: MessageId[];
  reason: string;
  /** Ack them (expired or corrupt: redelivering cannot help); otherwise have the broker redeliver them. */
  ack: boolean;
}

export interface ChunkLimits {
  /** Messages being assembled at once; a new one past this gives up the oldest (redelivered later). */
  maxPending: number;
  /** A message not whole this long after its first chunk arrived (or an orphan chunk this old) is acked and dropped. */
  expireMs: number;
}

/** Apache's Java client's defaults (maxPendingChunkedMessage, expireTimeOfIncompleteChunkedMessage). */
export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxPending: 10, expireMs: 60_000 };

interface Assembly {
  uuid: string;
  startedMs: number;
  numChunks: number;
  totalSize: number;
  size: number;
  parts: Buffer[];
  ids: MessageId[];
}

/**
 * Puts chunked messages back together, as Apache's clients do: a message starts at chunk 0 and takes its
 * chunks in order; when the last arrives its payload is the chunks joined (`complete`, with every chunk's id
 * to ack). A chunk out of order, or one of a message not started here, gives up that message; chunks given
 * up are redelivered by the broker (nack), unless they are expired or cannot add up (ack).
 */
export class ChunkedMessages {
  private readonly assemblies = new Map<string, Assembly>();

  constructor(
    private readonly limits: ChunkLimits = DEFAULT_CHUNK_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Messages being assembled now. */
  get pending(): number {
    return this.assemblies.size;
  }

  add(chunk: Chunk, drop: (dropped: DroppedChunks) => void): { payload: Buffer; ids: MessageId[] } | undefined {
    this.expire(drop);
    const { uuid, chunkId, numChunks, totalSize } = chunk;
    if (!(numChunks > 1 && chunkId >= 0 && chunkId < numChunks && totalSize >= 0)) {
      drop({ ids: [chunk.id], reason: `chunk ${chunkId} of ${numChunks} (${totalSize} bytes) does not make sense`, ack: true });
      return undefined;
    }
    let assembly = this.assemblies.get(uuid);
    if (chunkId === 0) {
      // The producer sent the message again (a retry after a reconnect): start over.
      if (assembly) this.giveUp(assembly, "its first chunk came again", false, drop);
      if (this.assemblies.size >= this.limits.maxPending) {
        const oldest = this.assemblies.values().next().value!;
        this.giveUp(oldest, `more than ${this.limits.maxPending} chunked messages were being assembled`, false, drop);
      }
      assembly = { uuid, startedMs: this.now(), numChunks, totalSize, size: 0, parts: [], ids: [] };
      this.assemblies.set(uuid, assembly);
    } else if (!assembly || assembly.ids.length !== chunkId || assembly.numChunks !== numChunks) {
      if (assembly) this.giveUp(assembly, `chunk ${chunkId} came where chunk ${assembly.ids.length} was due`, false, drop);
      const expired = this.now() - chunk.publishTimeMs > this.limits.expireMs;
      drop({ ids: [chunk.id], reason: `chunk ${chunkId} of a message whose earlier chunks are not here`, ack: expired });
      return undefined;
    }
    assembly.parts.push(chunk.payload);
    assembly.ids.push(chunk.id);
    assembly.size += chunk.payload.length;
    if (assembly.size > assembly.totalSize) {
      this.giveUp(assembly, `its chunks add up to more than the ${assembly.totalSize} bytes it declared`, true, drop);
      return undefined;
    }
    if (chunkId < numChunks - 1) return undefined;
    this.assemblies.delete(uuid);
    if (assembly.size !== assembly.totalSize) {
      drop({ ids: assembly.ids, reason: `its chunks add up to ${assembly.size} bytes, not ${assembly.totalSize}`, ack: true });
      return undefined;
    }
    return { payload: Buffer.concat(assembly.parts, assembly.size), ids: assembly.ids };
  }

  /** Forgets everything being assembled (the connection dropped: the broker redelivers what was not acked). */
  clear(): void {
    this.assemblies.clear();
  }

  private expire(drop: (dropped: DroppedChunks) => void): void {
    const now = this.now();
    for (const assembly of this.assemblies.values()) {
      if (now - assembly.startedMs > this.limits.expireMs) {
        this.giveUp(assembly, `it was not whole ${this.limits.expireMs} ms after its first chunk`, true, drop);
      }
    }
  }

  private giveUp(assembly: Assembly, why: string, ack: boolean, drop: (dropped: DroppedChunks) => void): void {
    this.assemblies.delete(assembly.uuid);
    if (assembly.ids.length > 0) drop({ ids: assembly.ids, reason: `chunked message ${assembly.uuid} given up: ${why}`, ack });
  }
}
