// The colours on a screen read with SGR codes kept (herdr `agent read --format ansi`):
// each row's text as cleanScreen gives it (clean.ts), with the style of every
// character, and which of several places carries the highlight. Generic: nothing
// here knows an agent; a grammar that shows a selection by colour only (opencode)
// asks. Pure.
import { CONTROL_CHAR, NBSP_LIKE_CHAR } from './clean'

export interface Cell {
  fg: string
  bg: string
  inverse: boolean
}
export interface StyledRow {
  text: string
  /** one style per UTF-16 unit of text */
  cells: Cell[]
}

export const DEFAULT_CELL: Cell = { fg: '', bg: '', inverse: false }

function applySgr(params: string, cur: Cell): Cell {
  const p = params === '' ? [0] : params.split(/[;:]/).map((x) => (x === '' ? 0 : Number(x)))
  let c = { ...cur }
  for (let i = 0; i < p.length; i++) {
    const n = p[i]
    if (n === 0) c = { ...DEFAULT_CELL }
    else if (n === 7) c.inverse = true
    else if (n === 27) c.inverse = false
    else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) c.fg = String(n)
    else if (n === 39) c.fg = ''
    else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) c.bg = String(n)
    else if (n === 49) c.bg = ''
    else if (n === 38 || n === 48) {
      let v = ''
      if (p[i + 1] === 5) {
        v = `5;${p[i + 2]}`
        i += 2
      } else if (p[i + 1] === 2) {
        v = `2;${p[i + 2]};${p[i + 3]};${p[i + 4]}`
        i += 4
      }
      if (n === 38) c.fg = v
      else c.bg = v
    }
  }
  return c
}

/** The screen's rows with the style of every character; undefined for plain text. */
export function styledRows(raw: string): StyledRow[] | undefined {
  if (typeof raw !== 'string' || !raw.includes('\u001b')) return undefined
  const rows: StyledRow[] = []
  let text = ''
  let cells: Cell[] = []
  let cur: Cell = { ...DEFAULT_CELL }
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]
    if (ch === '\u001b') {
      const next = raw[i + 1]
      if (next === '[') {
        let j = i + 2
        while (j < raw.length && /[0-9;:?<=>]/.test(raw[j])) j++
        if (j < raw.length && raw[j] === 'm') cur = applySgr(raw.slice(i + 2, j), cur)
        i = j // the final byte (or a cut sequence) is skipped
      } else if (next === ']') {
        // OSC: up to BEL or ST
        let j = i + 2
        while (j < raw.length && raw[j] !== '\u0007' && !(raw[j] === '\u001b' && raw[j + 1] === '\\')) j++
        i = raw[j] === '\u001b' ? j + 1 : j
      } else i += 1
      continue
    }
    if (ch === '\n' || (ch === '\r' && raw[i + 1] !== '\n')) {
      // a lone CR is a row break for cleanScreen too
      rows.push({ text, cells })
      text = ''
      cells = []
      continue
    }
    if (ch === '\t') {
      text += '    '
      for (let k = 0; k < 4; k++) cells.push(cur)
      continue
    }
    if (CONTROL_CHAR.test(ch)) continue // what cleanScreen drops, so columns match its rows
    text += NBSP_LIKE_CHAR.test(ch) ? ' ' : ch
    cells.push(cur)
  }
  rows.push({ text, cells })
  return rows
}

const bgKey = (c: Cell) => (c.inverse ? `inv:${c.fg}` : c.bg)
const sigKey = (c: Cell) => `${c.fg}|${c.bg}|${c.inverse}`

/** Style at the first character of `needle` in the row (searching from `from`). */
export function styleAt(row: StyledRow, needle: string, from = 0): { cell: Cell; end: number } | undefined {
  const at = row.text.indexOf(needle, from)
  if (at < 0 || at >= row.cells.length) return undefined
  return { cell: row.cells[at], end: at + needle.length }
}

/**
 * Which of the options is highlighted: the one drawn on a background other than its
 * row's, else the one whose colours differ from all the others (which agree). -1 if
 * the colours do not say.
 */
export function highlighted(found: { cell: Cell; base: Cell }[]): number {
  if (found.length === 0) return -1
  const off = found.flatMap((f, k) => (bgKey(f.cell) !== bgKey(f.base) ? [k] : []))
  if (off.length === 1) return off[0]
  const keys = found.map((f) => sigKey(f.cell))
  for (let k = 0; k < keys.length; k++) {
    const others = keys.filter((_, j) => j !== k)
    if (others.length && others.every((o) => o === others[0]) && keys[k] !== others[0]) return k
  }
  return -1
}
