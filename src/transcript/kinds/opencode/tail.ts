// The opencode live tail as a pure step. opencode has no append-only file to
// follow: messages are rows (or API objects) that are rewritten while the model
// works. So each poll reads the newest messages back to a watermark — the newest
// message below which everything is settled — and emits only entry ids it has not
// emitted before, and only once they are final (a half-streamed text is not sent).
import type { Draft } from '../../entry'
import { isSettledMessage, opencodeMessageId, settledDrafts } from './normalize'

export interface OpencodeTailState {
  /** Id of the newest message at or below which every message is settled and fully emitted. */
  readonly watermark?: string
  /** Entry ids already emitted from messages above the watermark (small: the unsettled zone). */
  readonly seen: ReadonlySet<string>
}

export const emptyTailState: OpencodeTailState = { seen: new Set() }

export interface TailStepResult {
  state: OpencodeTailState
  /** Entries to append, in conversation order. */
  newDrafts: Draft[]
  /**
   * false when the input did not reach the watermark: the caller read too few messages
   * (read more and step again) or, if it read the whole session, the history was
   * rewritten (revert/undo) and the timeline should be reloaded. State is unchanged then.
   */
  reachedWatermark: boolean
}

/**
 * One tail poll. `newestMessagesDesc` are the session's messages newest first, at least
 * down to the watermark message (inclusive or not) — or all of them. Either message
 * shape (v2 projected or 1.x {info, parts}) is accepted.
 * From emptyTailState this is also the backlog load: every settled entry comes out.
 */
export function tailStep(state: OpencodeTailState, newestMessagesDesc: readonly unknown[]): TailStepResult {
  const above: unknown[] = []
  let reached = state.watermark === undefined
  for (const m of newestMessagesDesc) {
    if (state.watermark !== undefined && opencodeMessageId(m) === state.watermark) {
      reached = true
      break
    }
    above.push(m)
  }
  if (!reached) return { state, newDrafts: [], reachedWatermark: false }
  above.reverse() // oldest first

  const seen = new Set(state.seen)
  const newDrafts: Draft[] = []
  let watermark = state.watermark
  let settledSoFar = true
  const keep = new Set<string>()
  above.forEach((m, i) => {
    const drafts = settledDrafts(m, i)
    for (const { draft, settled } of drafts) {
      if (settled && !seen.has(draft.id)) {
        seen.add(draft.id)
        newDrafts.push(draft)
      }
    }
    const id = opencodeMessageId(m)
    // The watermark advances over a prefix of settled messages only: a queued user
    // prompt above a still-running turn must not hide that turn from later polls.
    if (settledSoFar && isSettledMessage(m) && id !== undefined && drafts.every((d) => d.settled)) {
      watermark = id
    } else {
      settledSoFar = false
      for (const d of drafts) if (seen.has(d.draft.id)) keep.add(d.draft.id)
    }
  })
  return { state: { watermark, seen: keep }, newDrafts, reachedWatermark: true }
}
