import { z } from "zod";

// TrustGraph's Python side sends None for fields a message does not use: its dataclasses default some fields
// to None, and its api-gateway's translators set every field they were not given to None (a config `put`
// arrives with `"keys": null, "type": null`). These read such a null as the field's absence; each is a codec,
// so a parsed message encodes back to the wire form.

/** A string that may arrive as null: null reads as "". */
export const nullAsEmptyText = () =>
  z.codec(z.string().nullable(), z.string(), { decode: (value) => value ?? "", encode: (value) => value }).default("");

/** A list that may arrive as null: null reads as []; its items are parsed once, by `item`. */
export const nullAsEmptyList = <T extends z.ZodType>(item: T) =>
  z
    .codec(z.array(item).nullable(), z.array(z.custom<z.output<T>>()), {
      decode: (value) => value ?? [],
      encode: (value) => value,
    })
    .default([]);

/** An optional string that may arrive as null: null reads as absent. */
export const nullAsAbsentText = () =>
  z.codec(z.string().nullable().optional(), z.string().optional(), { decode: (value) => value ?? undefined, encode: (value) => value });
