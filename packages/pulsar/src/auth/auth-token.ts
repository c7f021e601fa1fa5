import type { AuthToken, AuthTokenHint } from "../transport.js";

/** A token as settings give it: fixed, or a function (sync or async) asked at each connection. */
export type AuthTokenSetting = string | ((hint?: AuthTokenHint) => string | Promise<string>);

/** The setting as the one async function every transport and admin call asks. */
export function authTokenOf(settings: { authToken?: AuthTokenSetting | undefined }): AuthToken | undefined {
  const token = settings.authToken;
  if (token === undefined) return undefined;
  return typeof token === "string" ? async () => token : async (hint) => await token(hint);
}
