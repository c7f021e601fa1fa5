import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/**
 * The OAuth2 key file Apache's Pulsar clients read (their `privateKey` / `private_key` parameter): the
 * client's credentials for the client-credentials grant. Other fields (`client_email`, `issuer_url`) are
 * allowed and ignored, as Pulsar's clients ignore them for this grant.
 */
export const OAuth2KeyFile = z.looseObject({
  type: z.literal("client_credentials", { message: 'must be "client_credentials"' }).optional(),
  client_id: z.string({ message: "must be a string" }).min(1, { message: "must not be empty" }),
  client_secret: z.string({ message: "must be a string" }).min(1, { message: "must not be empty" }),
});
export type OAuth2KeyFile = z.output<typeof OAuth2KeyFile>;

/**
 * Reads a key file named as Pulsar's clients name it: a `file://` URL, a `data:` URL (`data:application/json;base64,…`
 * or plain), or a path. Throws one line saying what is wrong, never the secret.
 */
export function readOAuth2KeyFile(ref: string): OAuth2KeyFile {
  const text = keyFileText(ref);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`the OAuth2 key file ${describe(ref)} is not JSON`);
  }
  const parsed = OAuth2KeyFile.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(top)"} ${issue.message}`);
    throw new Error(`the OAuth2 key file ${describe(ref)}: ${problems.join("; ")}`);
  }
  return parsed.data;
}

function keyFileText(ref: string): string {
  if (ref.startsWith("data:")) {
    const comma = ref.indexOf(",");
    if (comma < 0) throw new Error("the OAuth2 key file data: URL has no ',' before its content");
    const body = ref.slice(comma + 1);
    return ref.slice(0, comma).endsWith(";base64") ? Buffer.from(body, "base64").toString("utf8") : decodeURIComponent(body);
  }
  const path = ref.startsWith("file:") ? fileURLToPath(ref) : ref;
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(
      `cannot read the OAuth2 key file ${JSON.stringify(path)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/** A data: URL holds the secret itself: name it without its content. */
function describe(ref: string): string {
  return ref.startsWith("data:") ? "(data: URL)" : JSON.stringify(ref);
}
