// The phone's actions: POST /send, POST /approve, POST /agent-mode/cycle.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../app'
import { grammarFor } from '../card/registry'
import { cleanScreen } from '../card/clean'
import type { Blocked } from '../card/card'
import { HerdrError, herdrFor, type HerdrClient } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'
import { herdrFailure, plausibleTarget, requestSignal } from './errors'

export const SEND_MAX = 4096

/** How long to watch the screen for a keypress to take effect. */
const SETTLE = { tries: 10, everyMs: 60 }

/**
 * The record of approvals already pressed: (agent, seq) → pressed. A double tap
 * never presses twice, even while herdr still reports blocked at the old seq.
 * Bounded, oldest forgotten first; a seq is only meaningful for a while anyway.
 */
export class ApprovalRecord {
  private seen = new Set<string>()
  constructor(private readonly max = 10_000) {}
  private key(agent: string, seq: number) {
    return `${agent}\u0000${seq}`
  }
  has(agent: string, seq: number) {
    return this.seen.has(this.key(agent, seq))
  }
  add(agent: string, seq: number) {
    this.seen.add(this.key(agent, seq))
    if (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value!)
  }
  delete(agent: string, seq: number) {
    this.seen.delete(this.key(agent, seq))
  }
}

function sameDialog(a: Blocked | undefined, b: Blocked | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function actionRoutes(ctx: Ctx, approvals = new ApprovalRecord()) {
  async function screenOf(herdr: HerdrClient, agent: AgentInfo): Promise<string | undefined> {
    try {
      return cleanScreen(await herdr.agentRead(agent.pane_id, { source: 'visible' }))
    } catch {
      return undefined
    }
  }

  /** Re-reads the screen until `changed` says so, or the settle time runs out. */
  async function watch<T>(
    herdr: HerdrClient,
    signal: AbortSignal,
    agent: AgentInfo,
    readOff: (screen: string) => T,
    changed: (v: T) => boolean,
  ): Promise<T | undefined> {
    let last: T | undefined
    for (let i = 0; i < SETTLE.tries && !signal.aborted; i++) {
      const s = await screenOf(herdr, agent)
      if (s !== undefined) {
        last = readOff(s)
        if (changed(last)) return last
      }
      await sleep(SETTLE.everyMs)
    }
    return last
  }

  return new Elysia({ name: 'actions' })
    .post(
      '/send',
      async ({ body, status, request }) => {
        const { pane, text: typed } = body
        const signal = requestSignal(request, ctx.timing.requestDeadlineMs)
        const herdr = herdrFor(ctx.herdr, signal)
        if (!plausibleTarget(pane)) return status(404, 'no such pane')
        if ([...typed].length > SEND_MAX) return status(400, `text longer than ${SEND_MAX} characters`)
        // Each \n is an Enter; every other control character is refused, C1 too (U+009B is an 8-bit CSI).
        if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(typed)) return status(400, 'control characters other than \\n are not allowed')
        try {
          // Answering a numbered dialog: in Claude Code a digit selects at once, so
          // the contract's "3\n" would send a stray Enter into whatever comes next.
          const digit = /^([1-9])\n$/.exec(typed)?.[1]
          if (digit) {
            const skipped = await digitAnswer(herdr, signal, pane, digit)
            if (skipped !== undefined) return skipped ? { sent: true, enter_suppressed: true } : { sent: true }
          }
          const parts = typed.split('\n')
          // Stops between keystrokes once the client has gone or the deadline passed.
          for (let i = 0; i < parts.length; i++) {
            if (parts[i]) await herdr.paneSendText(pane, parts[i])
            if (i < parts.length - 1) await herdr.paneSendKeys(pane, ['enter'])
          }
          return { sent: true }
        } catch (e) {
          const f = herdrFailure(e, 'no such pane')
          return status(f.code, f.body)
        }
      },
      {
        body: t.Object(
          { pane: t.String({ minLength: 1 }), text: t.String() },
          { error: 'want {"pane": pane_id, "text": string}' },
        ),
        response: {
          200: t.Object({ sent: t.Boolean(), enter_suppressed: t.Optional(t.Boolean()) }),
          400: t.String(),
          401: t.String(),
          404: t.String(),
          502: t.String(),
        },
        detail: {
          summary: 'Type text into a pane; each \\n is an Enter',
          description:
            'At most 4096 characters; control characters other than \\n (C0, DEL and C1) are refused. A single digit + \\n answering a numbered Claude Code dialog sends no stray Enter when the digit already acted (enter_suppressed).',
          tags: ['actions'],
        },
      },
    )
    .post(
      '/approve',
      async ({ body, status, request }) => {
        const { agent: target, seq } = body
        const herdr = herdrFor(ctx.herdr, requestSignal(request, ctx.timing.requestDeadlineMs))
        if (!plausibleTarget(target)) return status(404, 'no such agent')
        if (approvals.has(target, seq)) return { sent: false, duplicate: true }
        // Claim the (agent, seq) before the first await: two taps racing still press once.
        approvals.add(target, seq)
        try {
          const agent = await herdr.agentGet(target)
          if (agent.agent_status !== 'blocked') return approvals.delete(target, seq), status(409, 'not blocked')
          if (agent.state_change_seq !== seq) return approvals.delete(target, seq), status(409, 'stale seq')
          await herdr.agentSendKeys(target, ['enter'])
          return { sent: true }
        } catch (e) {
          approvals.delete(target, seq)
          const f = herdrFailure(e)
          return status(f.code, f.body)
        }
      },
      {
        body: t.Object(
          { agent: t.String({ minLength: 1 }), seq: t.Integer({ minimum: 0 }) },
          { error: 'want {"agent": pane_id, "seq": state_change_seq}' },
        ),
        response: {
          200: t.Object({ sent: t.Boolean(), duplicate: t.Optional(t.Boolean()) }),
          400: t.String(),
          401: t.String(),
          404: t.String(),
          409: t.String(),
          502: t.String(),
        },
        detail: {
          summary: 'Press Enter (accept the default) only if still blocked at that seq',
          description: 'Idempotent: a repeated approve for the same agent and seq never presses twice.',
          tags: ['actions'],
        },
      },
    )
    .post(
      '/agent-mode/cycle',
      async ({ body, status, request }) => {
        const { pane } = body
        if (!plausibleTarget(pane)) return status(404, 'no such agent')
        const signal = requestSignal(request, ctx.timing.requestDeadlineMs)
        const herdr = herdrFor(ctx.herdr, signal)
        try {
          const agent = await herdr.agentGet(pane)
          const grammar = grammarFor(agent.agent)
          if (!grammar.permissionMode) return status(422, 'permission modes not supported for this agent kind')
          if (agent.agent_status === 'blocked') return status(409, 'agent is blocked')
          const before = await screenOf(herdr, agent)
          const previous = before === undefined ? undefined : grammar.permissionMode(before)
          await herdr.agentSendKeys(pane, ['shift+tab'])
          const now = await watch(herdr, signal, agent, (s) => grammar.permissionMode!(s), (m) => m !== undefined && m !== previous)
          if (signal.aborted) throw new HerdrError('failed', 'deadline', `herdr agent read ${pane}: no answer within ${ctx.timing.requestDeadlineMs} ms`)
          const confirmed = now !== undefined && now !== previous
          return {
            pane_id: agent.pane_id,
            previous_mode: previous ?? null,
            permission_mode: now ?? null,
            confirmed,
          }
        } catch (e) {
          const f = herdrFailure(e)
          return status(f.code, f.body)
        }
      },
      {
        body: t.Object({ pane: t.String({ minLength: 1 }) }, { error: 'want {"pane": pane_id}' }),
        response: {
          200: t.Object({
            pane_id: t.String(),
            previous_mode: t.Union([t.String(), t.Null()]),
            permission_mode: t.Union([t.String(), t.Null()]),
            confirmed: t.Boolean({ description: 'true only when the footer on screen shows the new mode' }),
          }),
          400: t.String(),
          401: t.String(),
          404: t.String(),
          409: t.String(),
          422: t.String(),
          502: t.String(),
        },
        detail: { summary: 'Cycle the permission mode (Shift+Tab) and read it back', tags: ['actions'] },
      },
    )

  /**
   * Types a digit into a numbered dialog. Returns undefined when the pane shows no
   * such dialog (the caller types normally), else whether the Enter was skipped.
   */
  async function digitAnswer(herdr: HerdrClient, signal: AbortSignal, pane: string, digit: string): Promise<boolean | undefined> {
    let agent: AgentInfo
    try {
      agent = await herdr.agentGet(pane)
    } catch (e) {
      if (e instanceof HerdrError && e.kind === 'not_found') return undefined // a plain shell: just type
      throw e
    }
    const grammar = grammarFor(agent.agent)
    if (!grammar.dialog || !grammar.digitSelects) return undefined
    const screen = await screenOf(herdr, agent)
    const dialog = screen === undefined ? undefined : grammar.dialog(screen)
    if (!dialog || !dialog.options.some((o) => o.index === Number(digit))) return undefined
    await herdr.paneSendText(pane, digit)
    const after = await watch(herdr, signal, agent, (s) => grammar.dialog!(s), (d) => !sameDialog(d, dialog))
    if (!sameDialog(after, dialog)) return true
    if (signal.aborted) return false // gone or out of time: no Enter into an unknown screen
    // The digit only moved a cursor (or the screen did not change): Enter confirms it.
    await herdr.paneSendKeys(pane, ['enter'])
    return false
  }
}
