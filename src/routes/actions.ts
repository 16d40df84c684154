// The phone's actions: POST /send, POST /approve, POST /answer, POST /agent-mode/cycle.
// The answering policy (guards, checks, keys) lives in src/answer/.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { cyclePermissionMode } from '../answer/mode'
import { SEND_MAX, typedTextProblem } from '../answer/typed-text'
import { paneTargets, plainTextErrors } from './edge'
import { needs } from '../auth/scopes'
import type { Principal } from '../auth/types'
import type { AuditContext } from '../audit/auditor'
import { AttachmentNotTaken, handAttachments } from '../attachments/hand'
import type { Attachment } from '../attachments/store'
import { HerdrError, type HerdrClient } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'

export { SEND_MAX }

export const SHELL_TAKES_NO_ATTACHMENTS = 'a shell takes no attachments'

/**
 * The pane's agent; undefined when the pane is there but runs no agent (a
 * shell). A pane that is not there at all stays herdr's not-found (404 `no such pane`).
 */
async function agentOrShell(herdr: HerdrClient, pane: string): Promise<AgentInfo | undefined> {
  try {
    return await herdr.agentGet(pane)
  } catch (e) {
    if (!(e instanceof HerdrError) || e.kind !== 'not_found') throw e
    await herdr.paneRead(pane, { source: 'visible' }) // not found here too: no such pane
    return undefined
  }
}

/** `text` of /answer: what /send allows, minus \n (the answer's Enter is the bridge's). */
const ANSWER_TEXT_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]/

/** /answer's text rules, checked before its target is looked at. */
function answerTextProblem(body: { text?: string }): string | undefined {
  const { text } = body
  if (text === undefined) return undefined
  if ([...text].length > SEND_MAX) return `text longer than ${SEND_MAX} characters`
  if (ANSWER_TEXT_FORBIDDEN.test(text)) return 'control characters are not allowed in text'
  return undefined
}

/**
 * What /approve and /answer reply alike: whether keys were sent, and whether the
 * request repeated one already carried out (then nothing is sent again).
 */
const answered = { sent: t.Boolean(), duplicate: t.Optional(t.Boolean()) }

export function actionRoutes(ctx: Ctx) {
  const answering = ctx.answering
  return new Elysia({ name: 'actions' })
    .use(paneTargets(ctx))
    .macro({
      answerText: {
        resolve(c) {
          const problem = answerTextProblem(c.body as { text?: string })
          if (problem === undefined) return
          ctx.audit?.answered(c as unknown as AuditContext, 400)
          return c.status(400, problem)
        },
      },
    })
    .post(
      '/send',
      async (c) => {
        const { body, status, herdr, signal, target: pane } = c
        let typed = body.text
        const problem = typedTextProblem(typed)
        if (problem !== undefined) return status(400, problem)
        if (body.attachments?.length) {
          // each one this device's own, kept, and the agent waiting for input
          const p = (c as unknown as { principal: Principal }).principal
          const found = body.attachments.map((id) => ctx.attachments?.get(id, p.kind === 'device' ? p.deviceId : undefined))
          if (found.some((a) => !a)) return status(404, 'no such attachment')
          const agent = await agentOrShell(herdr, pane)
          if (!agent) return status(409, SHELL_TAKES_NO_ATTACHMENTS)
          if (agent.agent_status !== 'idle' && agent.agent_status !== 'done') return status(409, 'agent is busy')
          try {
            typed = await handAttachments(herdr, pane, agent.agent ?? '', found as Attachment[], typed)
          } catch (e) {
            if (e instanceof AttachmentNotTaken) return status(502, e.message)
            throw e
          }
        }
        // Answering a numbered dialog: in Claude Code a digit selects at once, so
        // the contract's "3\n" would send a stray Enter into whatever comes next.
        const digit = /^([1-9])\n$/.exec(typed)?.[1]
        if (digit) {
          const skipped = await answering.digit(herdr, signal, pane, digit)
          if (skipped !== undefined) return skipped ? { sent: true, enter_suppressed: true } : { sent: true }
        }
        const parts = typed.split('\n')
        // Stops between keystrokes once the client has gone or the deadline passed.
        for (let i = 0; i < parts.length; i++) {
          if (parts[i]) await herdr.paneSendText(pane, parts[i])
          if (i < parts.length - 1) await herdr.paneSendKeys(pane, ['enter'])
        }
        return { sent: true }
      },
      {
        paneTarget: true,
        body: t.Object(
          {
            pane: t.String({ minLength: 1 }),
            text: t.String(),
            attachments: t.Optional(
              t.Array(t.String({ maxLength: 64 }), {
                maxItems: 10,
                description: 'ids from POST /attachments: handed to the agent before the text (only to an idle agent)',
              }),
            ),
          },
          { error: 'want {"pane": pane_id, "text": string}' },
        ),
        response: {
          200: t.Object({ sent: t.Boolean(), enter_suppressed: t.Optional(t.Boolean()) }),
          ...plainTextErrors(400, 401, 404, 409, 502),
        },
        detail: needs(
          'type',
          {
            summary: 'Type text into a pane; each \\n is an Enter',
            description:
              'At most 4096 characters; control characters other than \\n (C0, DEL and C1) are refused. A single digit + \\n answering a numbered Claude Code dialog sends no stray Enter when the digit already acted (enter_suppressed).',
            tags: ['actions'],
          },
          'send',
        ),
      },
    )
    .post(
      '/approve',
      async ({ body, status, herdr, agent }) => {
        const r = await answering.approve(herdr, agent, body.seq, body.fingerprint)
        // approve refuses only with 409 (not blocked, stale seq, dialog changed)
        return 'ok' in r ? r.ok : status(r.status as 409, r.body)
      },
      {
        agentTarget: true,
        body: t.Object(
          {
            agent: t.String({ minLength: 1 }),
            seq: t.Integer({ minimum: 0 }),
            fingerprint: t.Optional(
              t.String({ minLength: 1, maxLength: 128, description: "the card's blocked.fingerprint: 409 `dialog changed` if another dialog is on screen" }),
            ),
          },
          { error: 'want {"agent": pane_id, "seq": state_change_seq, "fingerprint"?: string}' },
        ),
        response: {
          200: t.Object(answered),
          ...plainTextErrors(400, 401, 404, 409, 502),
        },
        detail: needs(
          'answer',
          {
            summary: 'Press Enter (accept the default) only if still blocked at that seq',
            description:
              'Idempotent: a repeated approve for the same pane and seq never presses twice, however the pane is named (pane id or agent name); a failed first attempt does not make the retry a duplicate. With `fingerprint`, 409 `dialog changed` when the dialog on screen is another one.',
            tags: ['actions'],
          },
          'approve',
        ),
      },
    )
    .post(
      '/answer',
      async ({ body, status, herdr, agent }) => {
        const { seq, fingerprint, choose, text } = body
        const r = await answering.answer(herdr, agent, { seq, fingerprint, choose, text })
        return 'ok' in r ? r.ok : status(r.status, r.body)
      },
      {
        answerText: true,
        agentTarget: true,
        body: t.Object(
          {
            pane: t.String({ minLength: 1, description: 'pane id or agent name' }),
            seq: t.Integer({ minimum: 0, description: 'state_change_seq from the card' }),
            fingerprint: t.String({ minLength: 1, maxLength: 128, description: "the card's blocked.fingerprint" }),
            choose: t.Array(t.Integer({ minimum: 1, maximum: 99 }), {
              minItems: 1,
              maxItems: 99,
              description: "1-based positions in the card's blocked.options (several only for multi_select)",
            }),
            text: t.Optional(t.String({ description: 'for a free_text option: typed, then Enter; at most 4096 characters, no control characters' })),
          },
          { error: 'want {"pane": pane_id, "seq": state_change_seq, "fingerprint": string, "choose": [position, …], "text"?: string}' },
        ),
        response: {
          200: t.Object({
            ...answered,
            agent_status: t.Optional(t.String()),
            next_fingerprint: t.Optional(t.Union([t.String(), t.Null()], { description: 'the dialog now on screen (next tab, follow-up review), or null' })),
          }),
          ...plainTextErrors(400, 401, 404, 409, 422, 502),
        },
        detail: needs(
          'answer',
          {
            summary: 'Answer the dialog on screen: pick options, tick boxes and submit, or type a free-text answer',
            description:
              "The bridge re-reads the screen and refuses (409 `not blocked` / `stale seq` / `dialog changed`, no key sent) unless the dialog is the one the phone saw. It then presses the keys the agent's own UI wants (digits, arrows, toggles then submit, text then Enter), re-reading the screen between keys; if the dialog changes mid-way it stops with 409 `dialog changed` saying how far it got. A repeat of a successful answer (same pane, seq, fingerprint) is `{sent:false, duplicate:true}`. 422 `cannot answer this dialog` for a kind without a grammar or a dialog its grammar cannot drive.",
            tags: ['actions'],
          },
          'answer',
        ),
      },
    )
    .post(
      '/agent-mode/cycle',
      async ({ status, herdr, signal, target, agent }) => {
        const r = await cyclePermissionMode(herdr, signal, target, agent, ctx.timing.requestDeadlineMs)
        return 'refused' in r ? status(r.refused, r.body) : r
      },
      {
        agentTarget: true,
        body: t.Object({ pane: t.String({ minLength: 1 }) }, { error: 'want {"pane": pane_id}' }),
        response: {
          200: t.Object({
            pane_id: t.String(),
            previous_mode: t.Union([t.String(), t.Null()]),
            permission_mode: t.Union([t.String(), t.Null()]),
            confirmed: t.Boolean({ description: 'true only when the footer on screen shows the new mode' }),
          }),
          ...plainTextErrors(400, 401, 404, 409, 422, 502),
        },
        detail: needs('answer', { summary: 'Cycle the permission mode (Shift+Tab) and read it back', tags: ['actions'] }, 'mode.cycle'),
      },
    )
}
