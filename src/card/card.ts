// The parsed agent card (docs/agent-pane-api.md, GET /agent-state) and the grammar
// interface every agent kind's screen parser implements.
import { t, type Static } from 'elysia'
import type { AgentInfo } from '../herdr/types'

export const OptionSchema = t.Object({
  index: t.Integer({ description: 'the number the user types to pick it (1-based); 0 if unnumbered' }),
  label: t.String(),
  selected: t.Boolean({ description: 'the highlighted default — the one a bare Enter (/approve) accepts' }),
  checked: t.Optional(t.Boolean({ description: 'multi-select forms only: the box is ticked ("[✔]")' })),
})
export type Option = Static<typeof OptionSchema>

export const BlockedSchema = t.Object({
  question: t.String(),
  options: t.Array(OptionSchema),
})
export type Blocked = Static<typeof BlockedSchema>

export const CardSchema = t.Object({
  pane_id: t.String(),
  agent_kind: t.String(),
  agent_status: t.String({ description: 'idle | working | blocked | done | unknown (from herdr)' }),
  permission_mode: t.Optional(t.String()),
  headline: t.String(),
  detail: t.String(),
  blocked: t.Optional(BlockedSchema),
  transcript: t.Optional(t.Array(t.String())),
  parsed: t.Boolean(),
})
export type Card = Static<typeof CardSchema>

/** What a grammar reads off a screen; the route adds pane_id, kind and status. */
export interface ScreenReading {
  headline: string
  detail: string
  /** a dialog on screen; the route only keeps it when herdr says blocked */
  blocked?: Blocked
  permission_mode?: string
  transcript?: string[]
  parsed: boolean
  /** which rule decided (for debugging a wrong card: "explain") */
  rule?: string
}

/**
 * A screen grammar: pure, (screen text, agent info) → card fields. One per agent
 * kind, in a registry; the fallback grammar serves every other kind.
 */
export interface ScreenGrammar {
  /** herdr agent labels this grammar reads (claude, codex, …) */
  readonly kinds: readonly string[]
  read(screen: string, agent: AgentInfo): ScreenReading
  /** The permission mode shown in the footer, if this kind has modes and one is visible. */
  permissionMode?(screen: string): string | undefined
  /** The numbered dialog on screen, if any (for the digit-then-Enter safety in /send). */
  dialog?(screen: string): Blocked | undefined
  /**
   * A digit typed into a numbered dialog picks that option at once (Claude Code):
   * /send then skips the Enter that would otherwise land in whatever comes next.
   */
  readonly digitSelects?: boolean
  /** The screen is read with its colours: the selection is shown by colour only (opencode). */
  readonly wantsAnsi?: boolean
}
