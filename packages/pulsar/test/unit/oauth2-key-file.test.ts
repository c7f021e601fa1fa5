import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { readOAuth2KeyFile } from "../../src/index.js";

const credentials = { type: "client_credentials", client_id: "svc", client_secret: "s3cret", client_email: "svc@example", issuer_url: "x" };

describe("the OAuth2 key file, named as Apache's Pulsar clients name it", () => {
  const dir = mkdtempSync(join(tmpdir(), "oauth2-key-"));
  const path = join(dir, "credentials.json");
  writeFileSync(path, JSON.stringify(credentials));

  it("is read from a path, a file:// URL, and a data: URL in base64 or plain", () => {
    const base64 = `data:application/json;base64,${Buffer.from(JSON.stringify(credentials)).toString("base64")}`;
    const plain = `data:application/json,${encodeURIComponent(JSON.stringify(credentials))}`;
    for (const ref of [path, pathToFileURL(path).href, base64, plain]) {
      expect(readOAuth2KeyFile(ref)).toMatchObject({ client_id: "svc", client_secret: "s3cret" });
    }
  });

  it("names what is wrong without echoing the secret", () => {
    const wrongType = join(dir, "wrong-type.json");
    writeFileSync(wrongType, JSON.stringify({ ...credentials, type: "sn_service_account", client_id: 7 }));
    let message = "";
    try {
      readOAuth2KeyFile(wrongType);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/type must be "client_credentials"; client_id must be a string/);
    expect(message).not.toContain("s3cret");
    expect(() => readOAuth2KeyFile("data:application/json;base64")).toThrow(/has no ',' before its content/);
    expect(() => readOAuth2KeyFile(join(dir, "absent.json"))).toThrow(/cannot read the OAuth2 key file .*absent.json" \(ENOENT\)/);
  });
});
