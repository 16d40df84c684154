// The answering policy behind POST /approve, POST /answer and the digit shortcut of
// POST /send: which checks come first, the duplicate guard on the pane id herdr
// resolves, and the dialog driven key by key. Routes only shape requests and replies;
// a herdr failure propagates to the route edge (routes/edge.ts), which maps it.
import { blockedOf } from '../card/build'
import type { ScreenGrammar } from '../card/card'
import { cleanScreen } from '../card/clean'
import { grammarFor, hasGrammar } from '../card/registry'
import { HerdrError, type HerdrClient } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'
import { play, SETTLE, type DialogPort, type Settle } from './driver'
import { PaneGuard } from './guard'
import { CANNOT, planAnswer, type Choice, type LiveDialog } from './plan'

export type Refusal = { status: 400 | 409 | 422; body: string }
export type Reply<T> = { ok: T } | Refusal

export interface AnswerRequest extends Choice {
  seq: number
  fingerprint: string
}
export interface AnswerResult {
  sent: boolean
  duplicate?: true
  agent_status?: string
  next_fingerprint?: string | null
}

/** How long /send watches a digit take effect before it adds the Enter. */
const DIGIT_SETTLE_MS = 1000

/**
 * The answering service. One per app: its guard is what makes taps on the same dialog
 * press once. Each call gets the request's herdr client (bound to its deadline).
 */
export function createAnswering(o: { guard?: PaneGuard; settle?: Settle } = {}) {
  const guard = o.guard ?? new PaneGuard()
  const settle = o.settle ?? SETTLE

  /** The dialog on the agent's screen, read the way GET /agent-state reads it. */
  async function liveDialog(herdr: HerdrClient, agent: AgentInfo, grammar: ScreenGrammar): Promise<LiveDialog | undefined> {
    const raw = await herdr.agentRead(agent.pane_id, grammar.wantsAnsi ? { source: 'visible', ansi: true } : { source: 'visible' })
    const reading = grammar.read(raw, agent)
    if (!reading.blocked) return undefined
    return { blocked: blockedOf(agent.agent ?? 'unknown', reading.blocked, reading.identity), drive: reading.drive, identity: reading.identity }
  }

  function portFor(herdr: HerdrClient, agent: AgentInfo, grammar: ScreenGrammar): DialogPort {
    return {
      read: () => liveDialog(herdr, agent, grammar).catch(() => undefined),
      key: (k) => herdr.paneSendKeys(agent.pane_id, [k]),
      text: (t) => herdr.paneSendText(agent.pane_id, t),
    }
  }

  return {
    guard,

    /**
     * POST /approve: Enter, once per (pane, seq), only on the dialog the phone saw.
     * `first` is the agent the request named, as herdr resolved it: the guard keys on its pane.
     */
    async approve(herdr: HerdrClient, first: AgentInfo, seq: number, fingerprint?: string): Promise<Reply<AnswerResult>> {
      const pane = first.pane_id
      return guard.exclusive(pane, async (): Promise<Reply<AnswerResult>> => {
        if (guard.succeeded(pane, 'approve', seq)) return { ok: { sent: false, duplicate: true } }
        const agent = await herdr.agentGet(pane)
        if (agent.agent_status !== 'blocked') return { status: 409, body: 'not blocked' }
        if (agent.state_change_seq !== seq) return { status: 409, body: 'stale seq' }
        if (fingerprint !== undefined) {
          const grammar = grammarFor(agent.agent)
          const now = hasGrammar(agent.agent) ? await liveDialog(herdr, agent, grammar) : undefined
          if (now?.blocked.fingerprint !== fingerprint) return { status: 409, body: 'dialog changed' }
        }
        await herdr.agentSendKeys(pane, ['enter'])
        guard.recordSuccess(pane, 'approve', seq)
        return { ok: { sent: true } }
      })
    },

    /** POST /answer: the chosen options in the agent's own UI, key by key. `first` as for approve. */
    async answer(herdr: HerdrClient, first: AgentInfo, req: AnswerRequest): Promise<Reply<AnswerResult>> {
      const pane = first.pane_id
      return guard.exclusive(pane, async (): Promise<Reply<AnswerResult>> => {
        if (guard.succeeded(pane, 'answer', req.seq, req.fingerprint)) return { ok: { sent: false, duplicate: true } }
        const agent = await herdr.agentGet(pane)
        if (!hasGrammar(agent.agent)) return { status: 422, body: CANNOT }
        if (agent.agent_status !== 'blocked') return { status: 409, body: 'not blocked' }
        if (agent.state_change_seq !== req.seq) return { status: 409, body: 'stale seq' }
        const grammar = grammarFor(agent.agent)
        const now = await liveDialog(herdr, agent, grammar)
        if (now?.blocked.fingerprint !== req.fingerprint) return { status: 409, body: 'dialog changed' }
        const drive = now.drive ? grammar.drives?.[now.drive.kind] : undefined
        const plan = planAnswer(agent.agent ?? 'unknown', now, drive, req)
        if ('error' in plan) return { status: plan.error, body: plan.body }
        const played = await play(portFor(herdr, agent, grammar), plan.steps, req.fingerprint, settle)
        if (!played.done) return { status: 409, body: played.body }
        guard.recordSuccess(pane, 'answer', req.seq, req.fingerprint)
        let status = 'unknown'
        try {
          status = (await herdr.agentGet(pane)).agent_status
        } catch {
          // the keys went; a failed status read does not undo the answer
        }
        return { ok: { sent: true, agent_status: status, next_fingerprint: played.after?.blocked.fingerprint ?? null } }
      })
    },

    /**
     * POST /send of "N\n" into a numbered dialog whose digit acts at once (Claude Code):
     * the digit, and the Enter only if the digit merely moved the cursor. undefined when
     * the pane shows no such dialog (the caller types normally), else whether the Enter
     * was skipped.
     */
    async digit(herdr: HerdrClient, signal: AbortSignal, target: string, digit: string): Promise<boolean | undefined> {
      let agent: AgentInfo
      try {
        agent = await herdr.agentGet(target)
      } catch (e) {
        if (e instanceof HerdrError && e.kind === 'not_found') return undefined // a plain shell: just type
        throw e
      }
      const grammar = grammarFor(agent.agent)
      if (!grammar.dialog || !grammar.digitSelects) return undefined
      const read = async () => {
        try {
          return grammar.dialog!(cleanScreen(await herdr.agentRead(agent.pane_id, { source: 'visible' })))
        } catch {
          return undefined
        }
      }
      const dialog = await read()
      if (!dialog?.options.some((o) => o.index === Number(digit))) return undefined
      const same = (d: unknown) => JSON.stringify(d) === JSON.stringify(dialog)
      await herdr.paneSendText(agent.pane_id, digit)
      const deadline = Date.now() + DIGIT_SETTLE_MS
      let after = await read()
      while (same(after) && Date.now() < deadline && !signal.aborted) {
        await new Promise((r) => setTimeout(r, settle.everyMs))
        after = await read()
      }
      if (!same(after)) return true
      if (signal.aborted) return false // gone or out of time: no Enter into an unknown screen
      // the digit only moved a cursor (or the screen did not change): Enter confirms it
      await herdr.paneSendKeys(agent.pane_id, ['enter'])
      return false
    },
  }
}

export type Answering = ReturnType<typeof createAnswering>
