// The normalized transcript entry: one wire shape for every agent kind
// (docs/agent-pane-api.md, "Normalized entry schema"). One TypeBox schema gives the
// TypeScript type, the runtime check in tests and the OpenAPI document.
import { t, type Static } from 'elysia'

export const ToolCallSchema = t.Object({
  id: t.String({ description: "The agent's tool-use id; equals result.for_id of its result" }),
  name: t.String({ description: 'Raw tool name (Bash, Edit, Read, Write, WebFetch, …)' }),
  title: t.Optional(t.String()),
  subtitle: t.Optional(t.String()),
  command: t.Optional(t.String()),
  file: t.Optional(t.String()),
  diff: t.Optional(t.String()),
  diff_truncated: t.Optional(t.Boolean()),
  input_summary: t.Optional(t.String()),
})
export type ToolCall = Static<typeof ToolCallSchema>

export const ToolResultSchema = t.Object({
  for_id: t.String(),
  ok: t.Boolean(),
  output_summary: t.Optional(t.String()),
  diff: t.Optional(t.String()),
  truncated: t.Optional(t.Boolean()),
})
export type ToolResult = Static<typeof ToolResultSchema>

export const RoleSchema = t.Union([t.Literal('user'), t.Literal('assistant'), t.Literal('system')])
export const EntryKindSchema = t.Union([t.Literal('message'), t.Literal('thinking'), t.Literal('tool_call'), t.Literal('tool_result'), t.Literal('attachment')])

export const EntrySchema = t.Object({
  id: t.String({ description: 'source line uuid + "#" + block index' }),
  parent_id: t.Optional(t.String()),
  seq: t.Integer({ minimum: 1, description: "1-based position in the whole session's normalized stream" }),
  ts: t.Optional(t.String()),
  role: RoleSchema,
  kind: EntryKindSchema,
  text: t.Optional(t.String()),
  tool: t.Optional(ToolCallSchema),
  result: t.Optional(ToolResultSchema),
  parsed: t.Boolean(),
})
export type Entry = Static<typeof EntrySchema>
export type Role = Entry['role']
export type EntryKind = Entry['kind']

/** What a normalizer produces: an entry before it has a place (seq) in a timeline. */
export type Draft = Omit<Entry, 'seq'>

/** An entry at its place: seq right after the ids, in the order the contract shows. */
export function placed(d: Draft, seq: number): Entry {
  const { id, parent_id, ...rest } = d
  return parent_id === undefined ? { id, seq, ...rest } : { id, parent_id, seq, ...rest }
}

/** The contract's limits, in runes (code points). */
export const LIMITS = {
  outputRunes: 4000,
  diffLines: 400,
  diffRunes: 12000,
  bodyRunes: 20000,
  newestPage: 150,
  olderPageDefault: 150,
  olderPageMax: 500,
} as const

/** Cuts a string to at most `max` code points; says whether it cut. */
export function capRunes(s: string, max: number): { text: string; cut: boolean } {
  // Fast path: a string of at most max UTF-16 units has at most max code points.
  if (s.length <= max) return { text: s, cut: false }
  let i = 0
  let runes = 0
  while (i < s.length && runes < max) {
    const c = s.charCodeAt(i)
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1
    runes++
  }
  return i >= s.length ? { text: s, cut: false } : { text: s.slice(0, i), cut: true }
}

/** Caps a unified diff to the contract's line and rune limits. */
export function capDiff(diff: string): { text: string; cut: boolean } {
  const lines = diff.split('\n')
  let cut = false
  let text = diff
  if (lines.length > LIMITS.diffLines) {
    text = lines.slice(0, LIMITS.diffLines).join('\n')
    cut = true
  }
  const r = capRunes(text, LIMITS.diffRunes)
  return { text: r.text, cut: cut || r.cut }
}
