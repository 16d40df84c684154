// What the user must do about herdr, from /healthz's `herdr` (the banner's text). Pure.
export interface HerdrHealth {
  found: boolean
  server: string
  detail?: string
}

/** What the user must do about herdr, or null while it serves. Pure. */
export function herdrProblem(h: HerdrHealth | undefined): string | null {
  if (!h) return null
  if (!h.found) return "herdr is not found on the bridge's machine: install it, or point the bridge at it (--herdr)."
  if (h.server === 'protocol_mismatch') return h.detail ?? "herdr's CLI refuses its running server: restart the herdr server."
  if (h.server === 'not_running') return "herdr's server is not running on the bridge's machine: start herdr."
  if (h.server === 'not_responding') return 'herdr does not answer (its server may be hung): restart the herdr server.'
  return null
}
