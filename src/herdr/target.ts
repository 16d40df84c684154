// What a pane target from a request may look like. Pure.

/** Targets we pass to herdr: pane ids or agent names; nothing that could read as a flag. */
export function plausibleTarget(s: string): boolean {
  return s.length <= 64 && /^[A-Za-z0-9][A-Za-z0-9:_-]*$/.test(s)
}
