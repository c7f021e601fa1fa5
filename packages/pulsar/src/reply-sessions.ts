import type { HandlerOptions, MessageHandler, PulsarClient, Subscription } from "./client.js";

/**
 * The sessions of one RequestClient's reply subscription, as many as its servers allow: one to start
 * with, `wide` once a reply numbered by its server (`seq`) shows that order survives several, back to one
 * for good when a reply without a number comes after all (another kind of server on the same topic).
 */
export class ReplySessions {
  private first: Subscription | undefined;
  /** The sessions opened on top of the first, while they are being opened or open. */
  private extra: Promise<Subscription | undefined> | undefined;
  private mode: "one" | "wide" | "one-for-good" = "one";
  private closed = false;

  constructor(
    private readonly client: PulsarClient,
    /** The subscription (Shared, so more sessions can join it); `consumers` is set here. */
    private readonly options: Omit<HandlerOptions, "consumers">,
    private readonly handler: MessageHandler,
    private readonly wide: number,
  ) {}

  /** Sessions open (or being opened) now. */
  get count(): number {
    return this.mode === "wide" ? this.wide : 1;
  }

  async start(): Promise<void> {
    this.first = await this.client.subscribe({ ...this.options, consumers: 1 }, this.handler);
  }

  /** Told of every reply with an id: whether its server numbered it. */
  observe(numbered: boolean): void {
    if (this.closed) return;
    if (numbered && this.mode === "one") this.widen();
    else if (!numbered && this.mode === "wide") this.narrow();
  }

  async close(): Promise<void> {
    this.closed = true;
    const extra = this.extra;
    this.extra = undefined;
    await Promise.all([this.first?.close(), extra?.then((s) => s?.close())]);
  }

  private widen(): void {
    this.mode = "wide";
    const logger = this.client.logger.child({ topic: this.options.topic, subscription: this.options.subscription });
    this.extra = this.client.subscribe({ ...this.options, consumers: this.wide - 1 }, this.handler).then(
      async (subscription) => {
        // Closed or narrowed while these were being opened: they are not wanted any more.
        if (this.closed || this.mode !== "wide") {
          await subscription.close();
          return undefined;
        }
        return subscription;
      },
      (err: unknown) => {
        logger.warn({ err }, "could not open more reply sessions; replies keep coming on one");
        if (this.mode === "wide") this.mode = "one-for-good";
        return undefined;
      },
    );
  }

  private narrow(): void {
    this.mode = "one-for-good";
    this.client.logger.info(
      { topic: this.options.topic, subscription: this.options.subscription },
      "a reply without `seq` after numbered ones: back to one reply session, to keep unnumbered streams in order",
    );
    const extra = this.extra;
    this.extra = undefined;
    void extra?.then((s) => s?.close());
  }
}
