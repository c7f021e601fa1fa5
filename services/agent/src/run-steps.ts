import type { NewStep, RunStore } from "./run-store/index.js";

/**
 * Records one run's steps. Once the run has ended (`end()`: answered, failed or cut short) nothing more is
 * written: a run cut short leaves its LLM or tool call in flight, and what that call brings back later
 * must not be added to a run already recorded as failed.
 */
export class RunSteps {
  private ended = false;

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
  ) {}

  async record(step: NewStep): Promise<void> {
    if (!this.ended) await this.store.step(this.runId, step);
  }

  /** A step with only its kind and text (thought, observation, answer). */
  note(kind: "thought" | "observation" | "answer", content: string): Promise<void> {
    return this.record({ kind, content, tool: null, arguments: null, duration_ms: null });
  }

  end(): void {
    this.ended = true;
  }
}
