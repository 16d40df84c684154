// Answering a dialog, planned: (the dialog on screen, its grammar's drive table, the
// phone's choice) → the keys to press, each with the screen it must produce before the
// next key may go. Pure; driver.ts plays the plan against the pane.
import type { Blocked, DriveState } from '../card/card'
import { fingerprintOf, type DialogDrive } from '../card/drive'

/** A dialog as read off the screen: the card's `blocked` plus what the drive needs. */
export interface LiveDialog {
  blocked: Blocked
  drive?: DriveState
  /** the grammar's identity rows, hashed into the fingerprint (DialogReading.identity) */
  identity?: string[]
}

export interface Step {
  send: { key: string } | { text: string }
  /** what was done, for the 409 body ("ticked Logging") */
  say: string
  /** the screen this step must produce before the next step may go; absent on the last */
  expect?: (d: LiveDialog) => boolean
}

export type Plan = { steps: Step[] } | { error: 400 | 422; body: string }

export const CANNOT = 'cannot answer this dialog'

export interface Choice {
  choose: number[]
  text?: string
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim()

/**
 * The keys that make `choice` in `d` (positions are 1-based into d.blocked.options).
 * `kind` is the agent kind the fingerprint was made with.
 */
export function planAnswer(kind: string, d: LiveDialog, drive: DialogDrive | undefined, choice: Choice): Plan {
  const { options, fingerprint } = d.blocked
  const n = options.length
  for (const p of choice.choose) {
    if (p < 1 || p > n) return { error: 400, body: `no option at position ${p}: the dialog has ${n}` }
  }
  if (new Set(choice.choose).size !== choice.choose.length) return { error: 400, body: 'a position is named twice' }
  const boxes = options.flatMap((o, k) => (o.checked !== undefined ? [k + 1] : []))
  const multi = d.blocked.multi_select && choice.choose.every((p) => boxes.includes(p))
  if (!multi && choice.choose.length > 1) return { error: 400, body: 'several positions for a single-choice dialog' }
  const wantsText = choice.choose.filter((p) => options[p - 1].free_text)
  if (choice.text !== undefined && wantsText.length === 0) return { error: 400, body: 'text for an option without free_text' }
  if (choice.text === undefined && wantsText.length > 0) return { error: 400, body: `option ${wantsText[0]} asks for text: send it in "text"` }
  if (!drive) return { error: 422, body: CANNOT }

  const same = (x: LiveDialog) => x.blocked.fingerprint === fingerprint
  const cursorOf = (x: LiveDialog) => x.blocked.options.findIndex((o) => o.selected) + 1
  const steps: Step[] = []
  let cursor = cursorOf(d)

  /** Cursor moves with prev/next from the highlighted option to `to` (1-based). */
  const walkTo = (to: number): boolean => {
    if (cursor < 1) return false // the highlight is not on screen: arrows would go blind
    while (cursor !== to) {
      const down = to > cursor
      cursor += down ? 1 : -1
      const at = cursor
      steps.push({
        send: { key: down ? drive.next : drive.prev },
        say: `moved ${down ? 'down' : 'up'} to ${JSON.stringify(options[at - 1].label)}`,
        expect: (x) => same(x) && cursorOf(x) === at && !x.drive?.submitFocused,
      })
    }
    return true
  }

  if (multi) {
    if (!drive.multi) return { error: 422, body: CANNOT }
    if (choice.text !== undefined) return { error: 422, body: CANNOT } // typing into a box row: not driven yet
    // tick exactly the chosen boxes: toggle every box whose state differs
    for (const p of boxes) {
      const o = options[p - 1]
      const want = choice.choose.includes(p)
      if (o.checked === want) continue
      if (o.index < 1) return { error: 422, body: CANNOT }
      steps.push({
        send: { key: String(o.index) },
        say: `${want ? 'ticked' : 'unticked'} ${JSON.stringify(o.label)}`,
        expect: (x) => same(x) && x.blocked.options[p - 1]?.checked === want,
      })
    }
    // the submit row lies one `next` past the last box
    const last = boxes[boxes.length - 1]
    if (!d.drive?.submitFocused) {
      if (cursor < 1) return { error: 422, body: CANNOT }
      if (cursor <= last) {
        if (!walkTo(last)) return { error: 422, body: CANNOT }
        steps.push({ send: { key: drive.next }, say: 'moved to the submit row', expect: (x) => same(x) && x.drive?.submitFocused === true })
      } else {
        if (!walkTo(last + 1)) return { error: 422, body: CANNOT }
        steps.push({ send: { key: drive.prev }, say: 'moved to the submit row', expect: (x) => same(x) && x.drive?.submitFocused === true })
      }
    }
    steps.push({ send: { key: drive.confirm }, say: 'submitted' })
    return { steps }
  }

  const p = choice.choose[0]
  const o = options[p - 1]
  // reach the option
  if (drive.pick.by === 'digit' && o.index > 0) {
    const acts = drive.pick.acts && !o.free_text // a free-text row only takes the cursor
    if (acts) return { steps: [{ send: { key: String(o.index) }, say: `chose ${JSON.stringify(o.label)}` }] }
    steps.push({
      send: { key: String(o.index) },
      say: `moved to ${JSON.stringify(o.label)}`,
      expect: (x) => same(x) && cursorOf(x) === p,
    })
    cursor = p
  } else if (!walkTo(p)) return { error: 422, body: CANNOT }

  if (o.free_text) {
    if (!drive.text) return { error: 422, body: CANNOT }
    const text = choice.text!
    const start = norm(text).slice(0, 16)
    const labels = options.map((x) => x.label)
    steps.push({
      send: { text },
      say: `typed the text into ${JSON.stringify(o.label)}`,
      // the row now shows the text instead of its placeholder (Claude Code), or the
      // dialog's input field does (pi): the same dialog otherwise
      expect: (x) => {
        const typed = x.drive?.typed
        if (typed !== undefined) return same(x) && norm(typed).startsWith(start)
        const shown = x.blocked.options[p - 1]?.label ?? ''
        const asBefore = x.blocked.options.map((y, k) => (k === p - 1 ? labels[k] : y.label))
        return x.blocked.options.length === n && fingerprintOf(kind, x.blocked.question, asBefore, x.identity) === fingerprint && norm(shown).startsWith(start)
      },
    })
  }
  steps.push({ send: { key: drive.confirm }, say: o.free_text ? 'submitted the text' : `chose ${JSON.stringify(o.label)}` })
  return { steps }
}
