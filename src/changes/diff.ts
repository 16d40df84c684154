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
  // a cut in the middle of a hunk leaves its last line whole or absent, never half a line counted twice
  return out
}
