import { OtlpReceiver } from "@toolmesh/test-support";

/**
 * The OTLP collector of the traced bench rows, in a process of its own (the CPU columns show it under
 * `others`). It only keeps what arrives while the bench measures, and decodes it afterwards: prints
 * `listening <url>`, and on SIGTERM `received <spans>`, then exits.
 */
const receiver = new OtlpReceiver({ deferDecoding: true });
await receiver.start();
process.stdout.write(`listening ${receiver.url}\n`);
process.on("SIGTERM", () => {
  process.stdout.write(`received ${receiver.decodePending()}\n`);
  void receiver.close().then(() => process.exit(0));
});
