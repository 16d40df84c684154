// Line-level helpers shared by every screen grammar (pure).

/** A full-width horizontal rule: `─────` (optionally with a label, as herdr defines it). */
export function isRule(line: string): boolean {
  const t = line.trim()
  if (t.length < 3 || t[0] !== '─') return false
  if (/^─+$/.test(t)) return true
  return /^─{3,}\s*\S.*─$/.test(t) // `──── label ─`
}

/** A dashed separator (`╌╌╌`, diff/plan panels) or a heavy/double rule. */
export function isDashedRule(line: string): boolean {
  const t = line.trim()
  return t.length >= 3 && /^[╌┄┈━═▔▁-]+$/.test(t) && !/^-{1,2}$/.test(t)
}

// Box drawing, block elements and geometric frame pieces used as decoration.
const BOX_CHARS = /[\u2500-\u259f\u25a0-\u25a1\u2800-\u28ff]/g

/** True when the line has nothing readable: only frame/box/block glyphs and spaces. */
export function isBoxArt(line: string): boolean {
  return !/[\p{L}\p{N}]/u.test(line.replace(BOX_CHARS, ''))
}

/** Remove frame glyphs at both edges of a row (`┃ text`, `│ text │`). */
export function stripFrame(line: string): string {
  return line.replace(/^[\s\u2500-\u259f]+/, '').replace(/[\s\u2500-\u259f]+$/, '')
}

// characters that may take two columns (CJK, fullwidth forms, emoji; astral ones as surrogates):
// a row without any is one column a UTF-16 unit (box glyphs, ● ⎿ …), and is measured without
// Bun.stringWidth. Broad on purpose: a false hit is only the slower, still exact, measure.
const MAYBE_WIDE =
  /[\u1100-\u115f\u231a\u231b\u23e9-\u23f3\u25fd\u25fe\u2600-\u27bf\u2b1b-\u2b55\u2e80-\ua4cf\uac00-\ud7a3\ud800-\udfff\uf900-\ufaff\ufe10-\ufe6f\uff00-\uffe6]/

/**
 * Terminal columns a row takes: an emoji or a CJK character takes two (a row holding them
 * looked short of the pane and its soft wrap was missed), box glyphs one.
 */
export function columns(s: string): number {
  return MAYBE_WIDE.test(s) ? Bun.stringWidth(s) : s.length
}

export function indentOf(line: string): number {
  const m = /^ */.exec(line)
  return m ? m[0].length : 0
}

/** Display width of the pane as the screen shows it: the widest rule, else the widest row. */
export function paneWidth(lines: readonly string[]): number {
  let rule = 0
  let widest = 0
  for (const l of lines) {
    const n = columns(l)
    if (n > widest) widest = n
    if (n > rule && isRule(l)) rule = n
  }
  return rule > 0 ? rule : widest
}

/**
 * Was `line` soft-wrapped into `next`? A terminal wraps at word boundaries, so a row
 * was wrapped when the next row's first word would not have fitted after it, in a
 * pane `width` wide whose TUI keeps `slack` columns of right margin. Rows longer than
 * the pane (already-joined scrollback) are never wrapped.
 */
export function wrapsInto(line: string, next: string, width: number, slack = 0): boolean {
  if (!next.trim() || width <= 0) return false
  const len = columns(line)
  if (len > width) return false
  const word = next.trim().split(/\s/)[0]
  return len + 1 + columns(word) > width - slack
}

/** Whether any of the patterns matches `s` (vocabularies list several per landmark). */
export const anyMatch = (res: readonly RegExp[], s: string): boolean => res.some((r) => r.test(s))

/**
 * A screen's conversation rows cut into blocks, in order (Claude's and codex's grammars read their
 * transcript area this way): `cur` is the block that takes the next rows, none
 * after something that ends a block (a rule, a banner's end).
 */
export class BlockCut<K extends string> {
  readonly blocks: { kind: K; rows: string[] }[] = []
  cur: { kind: K; rows: string[] } | undefined = undefined

  open(kind: K, row: string): void {
    this.cur = { kind, rows: [row] }
    this.blocks.push(this.cur)
  }

  end(): void {
    this.cur = undefined
  }

  /** whether a blank row came right before the row last passed to blankRow() */
  afterBlank = false
  private blank = false

  /** True for a blank row (the caller skips it); else notes whether a blank row preceded this one (`afterBlank`). */
  blankRow(row: string): boolean {
    if (!row.trim()) {
      this.blank = true
      return true
    }
    this.afterBlank = this.blank
    this.blank = false
    return false
  }
}
