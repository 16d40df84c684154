// Plays an answer plan against a pane: one key (or the text) at a time, re-reading the
// screen after each until it shows what the step must produce. If the dialog changed
// under it, it stops there — no key is ever pressed after the dialog it answers is gone.
import type { LiveDialog, Step } from './plan'

export interface DialogPort {
  /** the dialog on screen now (a fresh read), undefined when none can be read */
  read(): Promise<LiveDialog | undefined>
  key(key: string): Promise<void>
  text(text: string): Promise<void>
}

export interface Settle {
  /** how long one step may take to show on screen */
  ms: number
  /** pause between two reads */
  everyMs: number
}

export const SETTLE: Settle = { ms: 2500, everyMs: 40 }

export type Played = { done: true; after: LiveDialog | undefined } | { done: false; body: string }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function howFar(steps: readonly Step[], k: number): string {
  const did = steps.slice(0, k).map((s) => s.say)
  return did.length ? `stopped after ${k} of ${steps.length} steps (${did.join(', ')})` : `stopped before the first of ${steps.length} steps`
}

/**
 * Runs the steps. A herdr failure propagates (the route maps it to 502). The last
 * step's effect is watched too: `after` is the dialog on screen once the answered one
 * went away (or what is there when the settle time ran out).
 */
export async function play(port: DialogPort, steps: readonly Step[], fingerprint: string, settle: Settle = SETTLE): Promise<Played> {
  // the dialog as the last step left it: a typed free-text row has its own fingerprint
  let before = fingerprint
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k]
    if ('key' in step.send) await port.key(step.send.key)
    else await port.text(step.send.text)
    if (!step.expect) {
      // the last key: wait until the answered dialog has gone (or another replaced it)
      const deadline = Date.now() + settle.ms
      let now = await port.read()
      const still = (f: string) => f === fingerprint || f === before
      while (now && still(now.blocked.fingerprint) && Date.now() < deadline) {
        await sleep(settle.everyMs)
        now = await port.read()
      }
      return { done: true, after: now }
    }
    const deadline = Date.now() + settle.ms
    let goneReads = 0
    for (;;) {
      const now = await port.read()
      if (now && step.expect(now)) {
        before = now.blocked.fingerprint
        break
      }
      const gone = !now || now.blocked.fingerprint !== fingerprint
      goneReads = gone ? goneReads + 1 : 0
      // twice in a row: a frame caught mid-redraw is not a new dialog. A typed
      // free-text row changes the fingerprint while the text arrives, so a text step
      // waits for its expected screen until the settle time runs out.
      if (goneReads >= 2 && !('text' in step.send)) return { done: false, body: `dialog changed: ${howFar(steps, k + 1)}; nothing more was pressed` }
      if (Date.now() >= deadline) {
        return {
          done: false,
          body: gone
            ? `dialog changed: ${howFar(steps, k + 1)}; nothing more was pressed`
            : `dialog changed: step ${k + 1} (${step.say}) did not show on screen; ${howFar(steps, k + 1)}; nothing more was pressed`,
        }
      }
      await sleep(settle.everyMs)
    }
  }
  return { done: true, after: undefined }
}
