import { AgentResponse, ServiceName } from "@toolmesh/schema";
import type { Command } from "commander";
import { z } from "zod";
import type { CliContext } from "../context.js";
import { CliError } from "../errors.js";
import { agentTranscript } from "../format.js";
import { parseReply } from "../gateway.js";
import { asArray } from "../invocations.js";

const AgentReplies = z.array(AgentResponse);

export function registerAgent(program: Command, context: CliContext): void {
  program
    .command("agent")
    .description("ask the agent a question; prints its thoughts and observations, then the answer")
    .requiredOption("-q, --question <text>", "the question")
    .option("-u, --user <user>", "user the run belongs to", "")
    .action(async (opts: { question: string; user: string }, command: Command) => {
      // `request`, not `call`: the steps before an error are still worth printing.
      const reply = await context
        .gateway(command)
        .request(ServiceName.agent, { question: opts.question, user: opts.user, streaming: true }, true);
      const messages = parseReply(AgentReplies, asArray(reply), ServiceName.agent);
      const transcript = agentTranscript(messages);
      for (const line of transcript.lines) context.print(line);
      if (transcript.error !== undefined) throw new CliError(transcript.error);
      const last = messages.at(-1);
      if (last?.run_id) context.print(`(run ${last.run_id} on catalog revision ${last.catalog_revision}; tg show-run ${last.run_id})`);
    });
}
