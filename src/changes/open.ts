// Opening something below a base without following a symlink at any step
// (docs/bridge.md "The working tree is not the whole disk"). Node has no
// openat(), so the last component is opened with O_NOFOLLOW (and O_NONBLOCK: a
// FIFO that slipped in cannot hold the thread), and then the opened descriptor
// is asked where it really is: on Linux /proc/self/fd/N names the file the
// kernel opened, so a directory swapped for a symlink between the checks and
// the open is caught on the descriptor itself. Only regular files and
// directories are ever opened; a FIFO, a socket or a device is reported, never opened.
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readSync, readdirSync, readlinkSync, realpathSync, type Stats } from 'node:fs'
import { join } from 'node:path'

export type NodeKind = 'dir' | 'file' | 'symlink' | 'other'

export const kindOf = (st: Stats): NodeKind => (st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other')

/** Something below the base, opened (a regular file or a directory) or only looked at (anything else). */
export type Opened =
  | { kind: 'dir'; fd: number; stat: Stats }
  | { kind: 'file'; fd: number; stat: Stats }
  | { kind: 'symlink'; stat: Stats }
  | { kind: 'other'; stat: Stats }

const PROC_FD = existsSync('/proc/self/fd') ? '/proc/self/fd' : undefined

/** Where the opened descriptor really is (Linux), or undefined when the system cannot say. */
function whereIs(fd: number): string | undefined {
  if (!PROC_FD) return undefined
  try {
    return readlinkSync(`${PROC_FD}/${fd}`)
  } catch {
    return undefined
  }
}

/**
 * Opens `path` (absolute; the caller made it from a real base and checked components),
 * or undefined when it is missing, or is not what it was a moment before, or is not
 * exactly at `path` once open (a symlink was followed somewhere on the way).
 */
export function openExact(path: string): Opened | undefined {
  let st: Stats
  try {
    st = lstatSync(path)
  } catch {
    return undefined
  }
  const kind = kindOf(st)
  if (kind === 'symlink' || kind === 'other') return { kind, stat: st }
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (kind === 'dir' ? constants.O_DIRECTORY : 0))
  } catch {
    return undefined
  }
  try {
    const opened = fstatSync(fd)
    const same = opened.dev === st.dev && opened.ino === st.ino && kindOf(opened) === kind
    // elsewhere than Linux: the path resolved again, at least (narrower, not closed)
    const at = whereIs(fd) ?? realpathSync(path)
    if (same && at === path) return kind === 'dir' ? { kind, fd, stat: opened } : { kind, fd, stat: opened }
  } catch {
    // gone meanwhile
  }
  closeSync(fd)
  return undefined
}

/** The first `max` bytes of an open file. */
export function readFd(fd: number, max: number): Buffer {
  const buf = Buffer.allocUnsafe(max)
  let got = 0
  while (got < max) {
    const n = readSync(fd, buf, got, max - got, got)
    if (n <= 0) break
    got += n
  }
  return buf.subarray(0, got)
}

/** The first `max` bytes of the regular file exactly at `path`, or undefined (missing, a link, not a regular file). */
export function readExact(path: string, max: number): { bytes: Buffer; size: number } | undefined {
  const o = openExact(path)
  if (!o) return undefined
  if (o.kind !== 'file') {
    if (o.kind === 'dir') closeSync(o.fd)
    return undefined
  }
  try {
    return { bytes: readFd(o.fd, max), size: o.stat.size }
  } finally {
    closeSync(o.fd)
  }
}

/** The names in an open directory and each one's lstat, read through the descriptor where the system allows. */
export function readDirFd(fd: number, path: string): { names: string[]; stat: (name: string) => Stats | undefined } {
  const at = PROC_FD ? `${PROC_FD}/${fd}` : path
  const names = readdirSync(at)
  return {
    names,
    stat: (name) => {
      try {
        return lstatSync(join(at, name))
      } catch {
        return undefined
      }
    },
  }
}
