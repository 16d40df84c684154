// A write's body as the bridge takes it: a JSON object sent as application/json,
// or nothing. Text, a form (what `curl -d` sends by default), an array or a bare
// string is refused, so a body is never read in a way its sender did not mean
// (a /pair/code body sent as a form once minted a code with the default scopes). Pure.

/** The answer to a body that is not a JSON object sent as JSON. */
export const WANT_JSON_OBJECT = 'want a JSON object (content-type: application/json)'

/** A body refused before its schema is checked; its message is the answer. */
export class BodyNotAJsonObject extends Error {}

/** The JSON object in `raw` (not empty), or throws: BodyNotAJsonObject, or a SyntaxError for broken JSON. */
export function jsonObjectOf(raw: Uint8Array, contentType: string): Record<string, unknown> {
  if (contentType.trim().toLowerCase() !== 'application/json') throw new BodyNotAJsonObject(WANT_JSON_OBJECT)
  const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw))
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BodyNotAJsonObject(WANT_JSON_OBJECT)
  return value as Record<string, unknown>
}
