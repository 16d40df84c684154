// Waiting on a condition with a deadline, polling: what tests use instead of sleeping.
// Apart from the harness so the pure engine tests can use it without loading the app.

/** Waits until `check` returns a value (not undefined/false), polling; rejects after `ms`. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, ms = 5000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await check()
    if (v !== undefined && v !== false) return v as T
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
