// What a terminal does with typing, for the herdr stand-in: text typed into a
// pane shows where the program shows it (Claude Code's composer row `❯ `, or a
// shell's prompt line), Enter submits it, and Shift+Tab moves Claude Code's
// footer to the next permission mode. Pure: the pane's state in, screen text out.

export interface Typing {
  /** where typed text shows: Claude Code's composer, or a shell prompt */
  echo?: 'composer' | 'shell'
  /** typed, not yet submitted */
  typed?: string
  /** rows that submitted input added to the screen */
  submitted?: string[]
  /** Claude Code's footer rows, one per permission mode, in Shift+Tab order */
  mode_cycle?: string[]
  /** which of mode_cycle the footer shows now */
  mode?: number
}

/** Claude Code 2.1's footer rows (the screens under fixtures/screens show each). */
export const CLAUDE_FOOTERS = {
  default: '  ? for shortcuts · ← for agents',
  acceptEdits: '  ⏵⏵ accept edits on (shift+tab to cycle) · ← for agents',
  plan: '  ⏸ plan mode on (shift+tab to cycle) · ← for agents',
  bypassPermissions: '  ⏵⏵ bypass permissions on (shift+tab to cycle) · ← for agents',
} as const

const SGR = /\x1b\[[0-9;]*m/g
const plain = (row: string) => row.replace(SGR, '')
/** A rule of Claude Code's composer box: ─ across the pane (SGR codes ignored). */
export const isComposerRule = (row: string) => /^─{20,}\s*$/.test(plain(row))
const isComposer = (row: string) => /^[❯>]\s*$/.test(plain(row))
const isFooter = (row: string) => /^\s*(?:\? for shortcuts|(?:⏵⏵|⏸|⏵)\s.+\bon\b)/.test(plain(row))

/** The screen with the pane's typing, submitted rows and footer mode applied. */
export function withTyping(screen: string, t: Typing): string {
  if (!t.echo && !t.mode_cycle) return screen
  const endsNl = screen.endsWith('\n')
  const rows = (endsNl ? screen.slice(0, -1) : screen).split('\n')
  if (t.mode_cycle?.length) {
    const f = rows.findLastIndex(isFooter)
    if (f >= 0) rows[f] = t.mode_cycle[(t.mode ?? 0) % t.mode_cycle.length]
  }
  const submitted = t.submitted ?? []
  const typed = t.typed ?? ''
  if (t.echo === 'composer') {
    const c = rows.findLastIndex((r, i) => isComposer(r) && i > 0 && isComposerRule(rows[i - 1]))
    // a screen without a composer (a finished turn's last frame): what was typed shows at its foot
    if (c < 0 && typed) rows.push(`❯ ${typed}`)
    if (c >= 0) {
      rows[c] = `❯ ${typed}`
      if (submitted.length) {
        // the conversation ends above the composer's top rule, after its last non-blank row
        let end = c - 1
        while (end > 0 && plain(rows[end - 1]).trim() === '') end--
        const gap = plain(rows[end] ?? '').trim() === '' ? [] : ['']
        rows.splice(end, 0, '', ...submitted, ...gap)
      }
    }
  } else if (t.echo === 'shell') {
    let last = rows.length - 1
    while (last > 0 && plain(rows[last]).trim() === '') last--
    const prompt = rows[last].trimEnd()
    rows.splice(last, rows.length - last, ...submitted, typed ? `${prompt} ${typed}` : prompt)
  }
  return rows.join('\n') + (endsNl ? '\n' : '')
}

/** The prompt of a shell screen (its last non-blank row). */
function shellPrompt(screen: string): string {
  const rows = screen
    .split('\n')
    .map((r) => r.trimEnd())
    .filter((r) => r.trim() !== '')
  return rows[rows.length - 1] ?? '$'
}

/**
 * Typing into a pane that no reaction answered. Returns what changed, or
 * undefined when the pane does not echo. `screen` is the pane's base screen.
 */
export function typeInto(t: Typing, input: { text: string } | { keys: string[] }, screen: string): { typing: Typing; submittedPrompt?: string } | undefined {
  if (!t.echo && !t.mode_cycle) return undefined
  const next: Typing = { ...t, submitted: [...(t.submitted ?? [])], typed: t.typed ?? '' }
  let submittedPrompt: string | undefined
  if ('text' in input) {
    if (!t.echo) return undefined
    next.typed += input.text
    return { typing: next }
  }
  for (const key of input.keys) {
    const k = key.toLowerCase()
    if (k === 'shift+tab' && t.mode_cycle?.length) next.mode = ((next.mode ?? 0) + 1) % t.mode_cycle.length
    else if (!t.echo) continue
    else if (k === 'backspace' || k === 'bs') next.typed = [...next.typed!].slice(0, -1).join('')
    else if (k === 'ctrl+c' || k === 'c-c' || k === 'esc' || k === 'escape') next.typed = ''
    else if (k === 'enter' || k === 'return') {
      const line = next.typed!
      next.typed = ''
      if (t.echo === 'composer') {
        if (!line.trim()) continue
        next.submitted!.push(`❯ ${line}`)
        submittedPrompt = line
      } else {
        const prompt = shellPrompt(withTyping(screen, { ...t, typed: '' }))
        next.submitted!.push(`${prompt} ${line}`.trimEnd())
        const m = /^echo\s+(.*)$/.exec(line.trim())
        if (m) next.submitted!.push(m[1].replace(/^(['"])(.*)\1$/, '$2'))
        else if (line.trim()) next.submitted!.push(`${line.trim().split(/\s+/)[0]}: not run (this is the gothalo demo's stand-in shell)`)
      }
    }
  }
  return { typing: next, submittedPrompt }
}
