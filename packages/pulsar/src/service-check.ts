import type { Logger } from "pino";
import { parseTopic } from "@toolmesh/schema";
import type { StatsRead, TopicStatsReader } from "./topic-stats.js";

/** How long one answer about a topic is reused: a burst of calls to a stopped service asks the broker once. */
const ANSWER_REUSE_MS = 1_000;

/** What a read says about one side of a service: `yes`, `no`, or `unknown` (the stats could not be read). */
type Seen = "yes" | "no" | "unknown";

/**
 * Whether the service behind a request/response topic pair is running at all, from the broker's topic
 * stats: used when a request has had no reply for a while, so a call to a service that is not running
 * fails in seconds, naming the topic, instead of waiting out its whole timeout. It is not running when
 * - nothing consumes its request topic (non-persistent: no subscription with a consumer, the broker drops
 *   the request; persistent: no subscription at all, one without consumers keeps the request for later), and
 * - nothing publishes on its response topic: an instance winding down has closed its request consumer but
 *   keeps its reply producer until its last answer is sent, and must be waited for.
 * Anything the stats cannot settle (admin API refused or unreachable) answers false: keep waiting.
 */
export class ServiceCheck {
  private readonly answers = new Map<string, { at: number; seen: Promise<Seen> }>();
  private refusalLogged = false;

  /**
   * `afterMs`: how long a request waits for its first reply before the broker is asked (REQUEST_SERVICE_CHECK_MS);
   * a call whose timeout is no longer than it is never checked.
   */
  constructor(
    private readonly stats: Pick<TopicStatsReader, "read">,
    private readonly logger: Logger,
    readonly afterMs: number,
  ) {}

  /** True only when the broker shows nothing consuming `requestTopic` and nothing publishing on `responseTopic`. */
  async notRunning(requestTopic: string, responseTopic: string): Promise<boolean> {
    const [consumed, replying] = await Promise.all([this.ask("consumed", requestTopic), this.ask("published", responseTopic)]);
    return consumed === "no" && replying === "no";
  }

  private ask(side: "consumed" | "published", topic: string): Promise<Seen> {
    const key = `${side} ${topic}`;
    const now = Date.now();
    const known = this.answers.get(key);
    if (known && now - known.at < ANSWER_REUSE_MS) return known.seen;
    // Topics come and go (tool services): answers too old to reuse are dropped as new ones are kept.
    for (const [old, answer] of this.answers) if (now - answer.at >= ANSWER_REUSE_MS) this.answers.delete(old);
    const seen = this.stats.read(topic).then((read) => {
      this.note(topic, read);
      return side === "consumed" ? consumedBy(topic, read) : publishedTo(read);
    });
    this.answers.set(key, { at: now, seen });
    return seen;
  }

  private note(topic: string, read: StatsRead): void {
    if (read.kind === "refused" && !this.refusalLogged) {
      this.refusalLogged = true;
      this.logger.warn(
        { status: read.status },
        "the broker's admin API refused topic stats; calls to a stopped service wait out their timeout",
      );
    }
    if (read.kind === "failed")
      this.logger.debug({ topic, err: read.reason }, "could not read topic stats to see whether its service runs");
  }
}

/** Whether anything will read a request sent to `topic` (see ServiceCheck). */
function consumedBy(topic: string, read: StatsRead): Seen {
  // Not loaded: nobody is subscribed (a consumer loads the topic), and the request was never stored.
  if (read.kind === "absent") return "no";
  if (read.kind !== "stats") return "unknown";
  const subscriptions = Object.values(read.stats.subscriptions);
  const persistent = parseTopic(topic).persistence === "persistent";
  const consumed = persistent ? subscriptions.length > 0 : subscriptions.some((sub) => sub.consumers.length > 0);
  return consumed ? "yes" : "no";
}

/** Whether any producer is connected to `topic` (a service's reply producer, see ServiceCheck). */
function publishedTo(read: StatsRead): Seen {
  if (read.kind === "absent") return "no";
  if (read.kind !== "stats") return "unknown";
  return read.stats.publishers.length > 0 ? "yes" : "no";
}
