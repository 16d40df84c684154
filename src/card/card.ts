// The parsed agent card (docs/agent-pane-api.md, GET /agent-state) and the grammar
// interface every agent kind's screen parser implements.
import { t, type Static } from 'elysia'
import type { AgentInfo } from '../herdr/types'
import type { DialogDrive } from './drive'

export const OptionSchema = t.Object({
  index: t.Integer({ description: 'the number the user types to pick it (1-based); 0 if unnumbered' }),
  label: t.String({ description: 'the choice alone, as the agent draws it ("Yes, and switch to auto mode", "Default (recommended)")' }),
  description: t.Optional(
    t.String({
      description:
        'what the agent draws beside the choice, dimmed after " · " or in a column aligned across the options (a picker\'s model notes); not part of the fingerprint',
    }),
  ),
  selected: t.Boolean({ description: 'the highlighted default — the one a bare Enter (/approve) accepts' }),
  checked: t.Optional(t.Boolean({ description: 'multi-select forms only: the box is ticked ("[✔]")' })),
  free_text: t.Optional(
    t.Literal(true, { description: 'choosing it asks the user to type ("Type something", "Tell Claude what to change"): POST /answer takes `text`' }),
  ),
})
export type Option = Static<typeof OptionSchema>

export const QuestionsSchema = t.Object(
  {
    titles: t.Array(t.String(), { description: "the tabs' titles in order" }),
    current: t.Integer({ minimum: 1, description: '1-based position in `titles` of the question on screen' }),
  },
  { description: 'a tabbed dialog with several questions; the visible one is in question/options' },
)

export const BlockedSchema = t.Object({
  question: t.String(),
  options: t.Array(OptionSchema),
  fingerprint: t.String({
    description:
      'opaque: the same dialog on screen always gives the same value (kind, question, option labels in order; not the cursor or the ticks). POST /answer and /approve refuse with 409 `dialog changed` when the dialog on screen has another one',
  }),
  multi_select: t.Boolean({ description: 'several options can be checked before submitting; each option then carries `checked`' }),
  questions: t.Optional(QuestionsSchema),
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

/** At most this many recent conversation rows make a card's transcript (every grammar). */
export const TRANSCRIPT_LINES = 12

/** The card fields `gothalo explain` accounts for, one rule each. */
export type ExplainedField =
  | 'headline'
  | 'detail'
  | 'blocked.question'
  | 'blocked.options'
  | 'blocked.options.description'
  | 'blocked.questions'
  | 'permission_mode'

/** Why a field says what it says: the id of the rule that decided it and the evidence. */
export interface Decision {
  rule: string
  why: string
}

/** A part of the screen a grammar recognised: rows [from, to) of the cleaned screen. */
export interface Region {
  name: string
  from: number
  to: number
}

/** What a grammar reads off a screen; the route adds pane_id, kind and status. */
export interface ScreenReading {
  headline: string
  detail: string
  /** a dialog on screen; the route only keeps it when herdr says blocked (fingerprint added by buildCard) */
  blocked?: DialogReading
  /** which of the grammar's drive tables answers that dialog, and what /answer must know beyond the card */
  drive?: DriveState
  /**
   * Rows that tell the dialog from another with the same question and buttons (the
   * command or file a permission asks about), hashed into its fingerprint; never on
   * the wire. Only rows that stay put while the user moves and ticks.
   */
  identity?: string[]
  permission_mode?: string
  transcript?: string[]
  parsed: boolean
  /** the id of the rule that decided the headline (src/card/rules.ts) */
  rule?: string
  /** the rule behind each field it set, and why (for `gothalo explain`) */
  decisions?: Partial<Record<ExplainedField, Decision>>
  /** the regions the grammar found on the screen */
  regions?: Region[]
}

/** A dialog as a grammar reads it: the card's `blocked` before the fingerprint is added. */
export type DialogReading = Omit<Blocked, 'fingerprint' | 'multi_select'> & { multi_select?: boolean }

/** The live dialog's state beyond the card, for POST /answer (never on the wire). */
export interface DriveState {
  /** key into the grammar's `drives` table */
  kind: string
  /** multi-select: the cursor is on the submit row ("Next", "Submit") */
  submitFocused?: boolean
  /** the text in the dialog's own input field, when it has one apart from its options (pi's input dialog) */
  typed?: string
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
  dialog?(screen: string): DialogReading | undefined
  /**
   * How this kind's dialogs are answered, by DriveState.kind (src/answer/drive.ts):
   * data next to the wording, so a new agent version changes a table, not code.
   * A dialog whose kind is not in the table cannot be answered (422).
   */
  readonly drives?: Readonly<Record<string, DialogDrive>>
  /**
   * A digit typed into a numbered dialog picks that option at once (Claude Code):
   * /send then skips the Enter that would otherwise land in whatever comes next.
   */
  readonly digitSelects?: boolean
  /** The screen is read with its colours: the selection is shown by colour only (opencode). */
  readonly wantsAnsi?: boolean
  /** Every rule this grammar can name, in the order it tries them (src/card/rules.ts). */
  readonly rules: readonly RuleInfo[]
}

/** One entry of a grammar's rule manifest. */
export interface RuleInfo {
  /** "<grammar>.<area>.<name>", e.g. claude.dialog.question */
  id: string
  /** the field it decides ('layout' for rules that find regions) */
  field: ExplainedField | 'layout'
  /** what the rule looks for, in a sentence */
  says: string
}
