import type { Completion } from "./chat-model.js";

/** What a run's LLM calls used, as the end of its dialog reports it (TrustGraph's in_token/out_token/model). */
export interface RunUsage {
  inTokens: number | null;
  outTokens: number | null;
  model: string | null;
}

/**
 * Sums the tokens of one run's completions. A model server that reports no usage leaves the counts null
 * (unknown, not zero); one that reports it for some completions only gives the sum of those.
 */
export class UsageTally {
  private inTokens: number | null = null;
  private outTokens: number | null = null;
  private model: string | null = null;

  add(completion: Pick<Completion, "usage" | "model">): void {
    this.model = completion.model;
    if (!completion.usage) return;
    this.inTokens = (this.inTokens ?? 0) + completion.usage.inTokens;
    this.outTokens = (this.outTokens ?? 0) + completion.usage.outTokens;
  }

  get total(): RunUsage {
    return { inTokens: this.inTokens, outTokens: this.outTokens, model: this.model };
  }
}
