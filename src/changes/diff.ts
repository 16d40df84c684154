// GET /changes/diff: one file's unified diff as structured hunks a phone can
// draw (line numbers on both sides). Pure: git's text in, hunks out.

export const DIFF_MAX_BYTES = 1024 * 1024

export interface DiffLine {
  op: ' ' | '+' | '-'
  old?: number
  new?: number
  text: string
}

export interface Hunk {
  header: string
  lines: DiffLine[]
}

export interface FileDiff {
  binary: boolean
  hunks: Hunk[]
  truncated: boolean
}

/** Parses `git diff` output for one file; `capped` says git's output was cut. */
export function parseDiff(text: string, capped: boolean): FileDiff {
  const out: FileDiff = { binary: false, hunks: [], truncated: capped }
  let body = text
  if (Buffer.byteLength(body) > DIFF_MAX_BYTES) {
    body = Buffer.from(body).subarray(0, DIFF_MAX_BYTES).toString('utf8')
    out.truncated = true
  }
  // a cut (ours or git's output cap) ends at the last whole line, never inside one
  if (out.truncated) body = body.slice(0, body.lastIndexOf('\n') + 1)
  const lines = body.split('\n')
  if (lines.at(-1) === '') lines.pop()
  let hunk: Hunk | undefined
  let o = 0
  let n = 0
  for (const l of lines) {
    if (l.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l)
      if (!m) continue
      o = Number(m[1])
      n = Number(m[2])
      hunk = { header: l, lines: [] }
      out.hunks.push(hunk)
      continue
    }
    if (!hunk) {
      if (/^Binary files .* differ$/.test(l) || l === 'GIT binary patch') out.binary = true
      continue
    }
    const c = l[0]
    if (c === ' ') hunk.lines.push({ op: ' ', old: o++, new: n++, text: l.slice(1) })
    else if (c === '-') hunk.lines.push({ op: '-', old: o++, text: l.slice(1) })
    else if (c === '+') hunk.lines.push({ op: '+', new: n++, text: l.slice(1) })
    // "\ No newline at end of file" and anything else: not a line of the file
  }
  return out
}

/**
 * An untracked file's diff against nothing, from its bytes as read (at most
 * DIFF_MAX_BYTES of text, cut at a line boundary): every line added; NUL in the
 * first 8,000 bytes means binary. `size` is the file's whole size.
 */
export function addedDiff(bytes: Buffer, size: number): FileDiff {
  if (bytes.subarray(0, 8000).includes(0)) return { binary: true, hunks: [], truncated: false }
  let text = bytes.subarray(0, DIFF_MAX_BYTES).toString('utf8')
  const truncated = size > DIFF_MAX_BYTES || bytes.length > DIFF_MAX_BYTES
  if (truncated) text = text.slice(0, text.lastIndexOf('\n') + 1)
  if (text === '') return { binary: false, hunks: [], truncated }
  const rows = text.split('\n')
  if (rows.at(-1) === '') rows.pop()
  return {
    binary: false,
    hunks: [{ header: `@@ -0,0 +1${rows.length === 1 ? '' : `,${rows.length}`} @@`, lines: rows.map((t, i) => ({ op: '+' as const, new: i + 1, text: t })) }],
    truncated,
  }
}
