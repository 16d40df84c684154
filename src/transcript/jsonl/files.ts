// Helpers for resolving a session file without reading whole files: list a
// directory's *.jsonl newest first, read only the head of a file, and pick the
// newest file whose first lines satisfy a predicate (the contract's
// "newest-matching fallback": recorded cwd equals the pane's cwd).
import { open, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** A file-system error that says the path is not there (gone, or a parent is not a directory). */
export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

export interface JsonlFileInfo {
  path: string
  mtimeMs: number
  size: number
}

/** The *.jsonl regular files directly in `dir`, newest first; [] when the directory is unreadable. */
export async function listJsonlFiles(dir: string): Promise<JsonlFileInfo[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return []
  }
  const infos: JsonlFileInfo[] = []
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue
    const path = join(dir, name)
    try {
      const st = await stat(path)
      if (st.isFile()) infos.push({ path, mtimeMs: st.mtimeMs, size: st.size })
    } catch {
      // vanished between readdir and stat
    }
  }
  return infos.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1))
}

/**
 * The first `maxLines` complete lines of a file, reading at most `maxBytes`
 * (a huge first line is cut off rather than read whole). Blank lines are skipped.
 * [] when the file cannot be read.
 */
export async function readHeadLines(path: string, maxLines = 20, maxBytes = 256 * 1024): Promise<string[]> {
  let fh
  try {
    fh = await open(path, 'r')
    const buf = Buffer.allocUnsafe(maxBytes)
    let got = 0
    const lines: string[] = []
    let start = 0
    while (got < maxBytes && lines.length < maxLines) {
      const { bytesRead } = await fh.read(buf, got, Math.min(64 * 1024, maxBytes - got), got)
      if (bytesRead === 0) break
      got += bytesRead
      for (let nl = buf.indexOf(0x0a, start); nl !== -1 && nl < got; nl = buf.indexOf(0x0a, start)) {
        const text = buf.toString('utf8', start, nl).replace(/\r$/, '')
        if (text.trim() !== '') lines.push(text)
        start = nl + 1
        if (lines.length >= maxLines) break
      }
    }
    return lines
  } catch {
    return []
  } finally {
    await fh?.close().catch(() => {})
  }
}

/** The newest *.jsonl in `dir` whose head lines satisfy `matches`; undefined when none does. */
export async function newestMatching(
  dir: string,
  matches: (headLines: string[], file: JsonlFileInfo) => boolean,
  opts: { maxLines?: number; maxBytes?: number } = {},
): Promise<JsonlFileInfo | undefined> {
  for (const file of await listJsonlFiles(dir)) {
    const head = await readHeadLines(file.path, opts.maxLines, opts.maxBytes)
    let ok = false
    try {
      ok = matches(head, file)
    } catch {
      ok = false
    }
    if (ok) return file
  }
  return undefined
}
