// A QR code drawn with text: two module rows per terminal row (▀ ▄ █), with the
// quiet zone a camera needs. On a terminal it is drawn black on white whatever
// the theme; piped, it is plain characters where a block is a dark module.
import { create } from 'qrcode'

const QUIET = 4 // the standard quiet zone: cameras find the code faster

/** The modules of `text` (true = dark), with a quiet zone of QUIET modules on each side. */
export function qrMatrix(text: string): boolean[][] {
  const { modules } = create(text, { errorCorrectionLevel: 'M' })
  const n = modules.size
  const size = n + 2 * QUIET
  const rows: boolean[][] = []
  for (let y = 0; y < size; y++) {
    const row: boolean[] = []
    for (let x = 0; x < size; x++) {
      const mx = x - QUIET
      const my = y - QUIET
      row.push(mx >= 0 && my >= 0 && mx < n && my < n && modules.get(my, mx) === 1)
    }
    rows.push(row)
  }
  return rows
}

const CELL = [' ', '▄', '▀', '█'] // index: top dark * 2 + bottom dark

/** The QR code as lines of text. `colour`: wrap each line in black-on-white SGR codes. */
export function qrLines(text: string, colour = false): string[] {
  const m = qrMatrix(text)
  const lines: string[] = []
  for (let y = 0; y < m.length; y += 2) {
    let line = ''
    for (let x = 0; x < m[y].length; x++) line += CELL[(m[y][x] ? 2 : 0) + (m[y + 1]?.[x] ? 1 : 0)]
    lines.push(colour ? `\x1b[30;47m${line}\x1b[0m` : line)
  }
  return lines
}
