import { z } from "zod";

/** Frames the broker's WebSocket service sends (pulsar-websocket's data classes). */
export const ProducerAckFrame = z.object({
  result: z.string(),
  messageId: z.string().optional(),
  errorMsg: z.string().optional(),
  context: z.string().optional(),
});

export const ConsumerMessageFrame = z.object({
  messageId: z.string(),
  payload: z.string(),
  properties: z.record(z.string(), z.string()).default({}),
  publishTime: z.string().default(""),
  redeliveryCount: z.number().default(0),
  key: z.string().optional(),
});

export function parseFrame<T extends z.ZodType>(schema: T, frame: string): z.output<T> | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(frame));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
