// Session files compressed with zstd (codex rewrites rollouts older than 7 days
// to <name>.jsonl.zst, docs/bridge.md "Every past conversation"). Two reads:
//  - the head (cwd, title) for the listing, synchronously and bounded: only the
//    whole blocks that hold the first bytes are decompressed (a zstd block
//    regenerates at most 128 KiB, so the output is bounded before decompressing);
//  - the whole content for a transcript: decompressed once, streaming, into a
//    plain copy in the bridge's own cache directory, capped (a zstd bomb is
//    refused, not unpacked), kept by the compressed file's identity and evicted
//    least recently used past a total size. The copy is what the JSONL engine reads.
import { createHash, randomBytes } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  unlinkSync,
} from 'node:fs'
import { open, realpath, rename, unlink, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createZstdDecompress, zstdDecompressSync } from 'node:zlib'
import { openInside } from './jsonl-file'

/** the name a compressed session file ends with */
export const ZST_SUFFIX = '.zst'
export const isCompressed = (path: string): boolean => path.endsWith(ZST_SUFFIX)

/** the most one compressed session may unpack to (past it: refused) */
export const UNPACKED_MAX = 256 * 1024 * 1024
/** the plain copies kept, at most, in total (least recently used go first) */
export const UNPACKED_CACHE_MAX = 1024 * 1024 * 1024

const MAGIC = 0xfd2fb528
/** a zstd block regenerates at most this many bytes (the format's Block_Maximum_Size) */
const BLOCK_MAX = 128 * 1024
/** the compressed bytes a head read walks, at most */
const HEAD_WALK_MAX = 4 * 1024 * 1024

/** A compressed session that cannot be served: not zstd, cut short, corrupt, or unpacking past the cap. */
export class CompressedSessionError extends Error {
  readonly code = 'EBADZST'
}
export const isCompressedSessionError = (e: unknown): e is CompressedSessionError => e instanceof CompressedSessionError

const isSkippable = (magic: number) => magic >>> 4 === 0x184d2a5

/** A frame header's length from its first bytes (magic + descriptor), or undefined when it is no zstd frame. */
function frameHeaderBytes(b: Buffer): number | undefined {
  if (b.length < 5 || b.readUInt32LE(0) !== MAGIC) return undefined
  const fhd = b[4]!
  const single = (fhd >> 5) & 1
  const did = [0, 1, 2, 4][fhd & 3]!
  const fcs = [single ? 1 : 0, 2, 4, 8][fhd >> 6]!
  return 5 + (single ? 0 : 1) + did + fcs
}

/**
 * Walks a zstd file's frames and block headers (a few bytes each, by positional
 * reads): `stopAfter` bytes of regenerated content bounded, it stops there.
 * Returns where it stopped, the content bound so far, and whether that is the
 * file's end exactly (every frame whole). Throws CompressedSessionError when
 * it is not zstd or its structure is broken.
 */
function walk(fd: number, size: number, stopAfter = Number.POSITIVE_INFINITY): { at: number; bound: number; whole: boolean } {
  const b = Buffer.allocUnsafe(18)
  const read = (n: number, at: number) => readSync(fd, b, 0, n, at)
  let at = 0
  let bound = 0
  while (at < size) {
    if (read(4, at) < 4) throw new CompressedSessionError('compressed session file is cut short')
    const magic = b.readUInt32LE(0)
    if (isSkippable(magic)) {
      if (read(8, at) < 8) throw new CompressedSessionError('compressed session file is cut short')
      at += 8 + b.readUInt32LE(4)
      continue
    }
    const got = read(18, at)
    const header = frameHeaderBytes(b.subarray(0, got))
    if (header === undefined) throw new CompressedSessionError(at === 0 ? 'not a zstd file' : 'compressed session file is corrupt')
    const checksum = (b[4]! >> 2) & 1
    at += header
    for (;;) {
      if (read(3, at) < 3) throw new CompressedSessionError('compressed session file is cut short')
      const h = b[0]! | (b[1]! << 8) | (b[2]! << 16)
      const type = (h >> 1) & 3
      const blockSize = h >>> 3
      if (type === 3) throw new CompressedSessionError('compressed session file is corrupt')
      // raw and RLE blocks say what they regenerate; a compressed one at most BLOCK_MAX
      const regen = type === 2 ? BLOCK_MAX : blockSize
      if (bound > 0 && bound + regen > stopAfter) return { at, bound, whole: false }
      // a head read walks a bounded stretch of the file (a file of empty blocks would take it all)
      if (stopAfter !== Number.POSITIVE_INFINITY && at > HEAD_WALK_MAX) return { at, bound, whole: false }
      const next = at + 3 + (type === 1 ? 1 : blockSize)
      // a head needs only the whole blocks before a cut (the cut is told when the whole file is read)
      if (next > size && stopAfter !== Number.POSITIVE_INFINITY) return { at, bound, whole: false }
      at = next
      bound += regen
      if (h & 1) break
    }
    at += checksum ? 4 : 0
    if (at > size) throw new CompressedSessionError('compressed session file is cut short')
  }
  return { at, bound, whole: at === size }
}

/**
 * The first bytes of a compressed file's content: at least `want` unless it
 * holds fewer (then `complete`), at most about `want` + 128 KiB (whole blocks).
 * Synchronous (the listing's head). Throws on a file that is not zstd.
 */
export function zstHead(path: string, want: number): { text: Buffer; complete: boolean } {
  // non-blocking: a named pipe at the path would hold the open until a writer came
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    const st = fstatSync(fd)
    if (!st.isFile()) throw new CompressedSessionError('compressed session file is not a regular file')
    const { size } = st
    const w = walk(fd, size, want)
    const input = Buffer.allocUnsafe(w.at)
    const n = readSync(fd, input, 0, w.at, 0)
    const text = zstdDecompressSync(input.subarray(0, n), { maxOutputLength: w.bound + BLOCK_MAX })
    return { text, complete: w.whole }
  } catch (e) {
    if (isCompressedSessionError(e)) throw e
    if ((e as NodeJS.ErrnoException)?.code?.startsWith?.('ZSTD_') || (e as NodeJS.ErrnoException)?.code === 'ERR_BUFFER_TOO_LARGE')
      throw new CompressedSessionError(`compressed session file is corrupt (${(e as Error).message})`)
    throw e
  } finally {
    closeSync(fd)
  }
}

export interface UnpackedSessionsOptions {
  /** where the plain copies are kept (made 0700); absent: a temporary directory of its own, removed by close() */
  dir?: string
  /** the copies' total size, at most (default UNPACKED_CACHE_MAX; copies in use are never evicted) */
  maxBytes?: number
  /** one session's content, at most (default UNPACKED_MAX) */
  maxUnpackedBytes?: number
  log?: (m: string) => void
}

interface Copy {
  path: string
  size: number
  used: number
  pins: number
}

/** A plain copy in use: released when its transcript is. */
export interface UnpackedCopy {
  path: string
  /** the directory it lies in (the JSONL engine reads it only inside it) */
  dir: string
  release(): void
}

/**
 * The plain copies of compressed session files, in the bridge's own cache
 * directory: one per compressed file's identity (real path, device, inode,
 * size, mtime), made once, 0600 in a 0700 directory.
 */
export class UnpackedSessions {
  private dir: string | undefined
  private readonly own: boolean
  private readonly maxBytes: number
  private readonly maxUnpacked: number
  private readonly log: (m: string) => void
  private readonly copies = new Map<string, Copy>()
  private readonly making = new Map<string, Promise<Copy>>()
  private clock = 0
  private scanned = false
  /** bytes written so far by the copies being made */
  private makingBytes = 0
  /** copies made (tests count decompressions) */
  made = 0

  constructor(opts: UnpackedSessionsOptions = {}) {
    this.dir = opts.dir
    this.own = opts.dir === undefined
    this.maxUnpacked = opts.maxUnpackedBytes ?? UNPACKED_MAX
    this.maxBytes = Math.max(opts.maxBytes ?? UNPACKED_CACHE_MAX, 0)
    this.log = opts.log ?? ((m) => console.warn(m))
  }

  /** The directory, made (0700) and its copies from a previous run taken in on first use. */
  private ready(): string {
    if (this.dir && this.scanned) return this.dir
    if (this.own && !this.dir) this.dir = mkdtempSync(join(tmpdir(), 'gothalo-unpacked-'))
    const dir = this.dir!
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    if (!lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`)
    chmodSync(dir, 0o700)
    this.scanned = true
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      // a copy half made when the bridge stopped
      if (name.endsWith('.tmp')) {
        rmSync(path, { force: true })
        continue
      }
      if (!name.endsWith('.jsonl') || this.copies.has(name)) continue
      const st = statSync(path, { throwIfNoEntry: false })
      if (st?.isFile()) this.copies.set(name, { path, size: st.size, used: st.mtimeMs - Date.now(), pins: 0 })
    }
    return dir
  }

  /** bytes of the copies a transcript holds now */
  private inUseBytes(): number {
    let n = 0
    for (const c of this.copies.values()) if (c.pins > 0) n += c.size
    return n
  }

  /** bytes the copies hold now */
  bytes(): number {
    let n = 0
    for (const c of this.copies.values()) n += c.size
    return n
  }

  /**
   * The plain copy of `path` (a compressed session inside `within`), made now
   * if there is none for its identity; pinned until released (never evicted
   * meanwhile). Rejects with CompressedSessionError when it cannot be unpacked.
   */
  async acquire(path: string, within: string): Promise<UnpackedCopy> {
    const fh = await openInside(path, within)
    let copy: Copy
    try {
      const st = await fh.stat()
      if (!st.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'EISDIR' })
      const real = await realpath(path)
      const name = `${createHash('sha256').update(`${real}\0${st.dev}\0${st.ino}\0${st.size}\0${st.mtimeMs}`).digest('hex').slice(0, 40)}.jsonl`
      const dir = this.ready()
      const kept = this.copies.get(name)
      if (kept && statSync(kept.path, { throwIfNoEntry: false })) copy = kept
      else {
        this.copies.delete(name)
        let pending = this.making.get(name)
        if (!pending) {
          pending = this.unpack(fh, st.size, join(dir, name)).finally(() => this.making.delete(name))
          this.making.set(name, pending)
        }
        copy = await pending
        this.copies.set(name, copy)
      }
      // pinned before anything else runs: another acquire's eviction cannot take it
      copy.pins++
      copy.used = ++this.clock
    } finally {
      await fh.close().catch(() => {})
    }
    this.evict()
    let released = false
    return {
      path: copy.path,
      dir: this.dir!,
      release: () => {
        if (released) return
        released = true
        copy.pins--
        this.evict()
      },
    }
  }

  /** Decompresses the file behind `fh` into `to`, streaming, refusing past the cap. */
  private async unpack(fh: FileHandle, size: number, to: string): Promise<Copy> {
    // zstd never makes content much larger (3 bytes a block at worst): a file this large unpacks past the cap
    if (size > this.maxUnpacked + this.maxUnpacked / 1024 + 1024)
      throw new CompressedSessionError(`compressed session unpacks to more than ${this.maxUnpacked} bytes: refused`)
    // the structure first: a file cut short decompresses without an error (to what its whole blocks hold)
    walk(fh.fd, size)
    const tmp = `${to}.${randomBytes(6).toString('hex')}.tmp`
    const out = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    let written = 0
    try {
      const z = createZstdDecompress()
      let failure: Error | undefined
      const done = new Promise<void>((resolve, reject) => {
        z.on('error', (e) => {
          failure ??= e
          reject(e)
        })
        z.on('end', resolve)
      })
      // awaited below; a failure meanwhile must not count as unhandled
      done.catch(() => {})
      // writes in order, one at a time; the decompressor waits for them (paused)
      let chain = Promise.resolve()
      z.on('data', (chunk: Buffer) => {
        written += chunk.length
        this.makingBytes += chunk.length
        if (written > this.maxUnpacked) {
          failure ??= new CompressedSessionError(`compressed session unpacks to more than ${this.maxUnpacked} bytes: refused`)
          z.destroy(failure)
          return
        }
        // copies in use are never evicted: many compressed sessions held open at once (one viewer's sockets)
        // would unpack them all onto the disk; those in use and being made stay within the bound and one session more
        const taken = this.inUseBytes() + this.makingBytes
        if (taken > this.maxBytes + this.maxUnpacked) {
          failure ??= new CompressedSessionError(
            `the unpacked copies in use take ${taken - chunk.length} bytes (at most ${this.maxBytes + this.maxUnpacked}): close a past session and try again`,
          )
          z.destroy(failure)
          return
        }
        z.pause()
        chain = chain
          .then(() => out.write(chunk).then(() => undefined))
          .then(
            () => void z.resume(),
            (e) => {
              failure ??= e as Error
              z.destroy(failure)
            },
          )
      })
      const input = Buffer.allocUnsafe(256 * 1024)
      for (let at = 0; at < size && !failure; ) {
        const { bytesRead } = await fh.read(input, 0, Math.min(input.length, size - at), at)
        if (bytesRead === 0) break
        at += bytesRead
        const more = z.write(Buffer.from(input.subarray(0, bytesRead)))
        if (!more) await new Promise<void>((r) => (failure ? r() : z.once('drain', r).once('close', r)))
      }
      if (!failure) z.end()
      try {
        await done
      } catch (e) {
        throw failure ?? (e as Error)
      }
      await chain
      if (failure) throw failure
      await out.close()
      await rename(tmp, to)
      this.made++
      return { path: to, size: written, used: ++this.clock, pins: 0 }
    } catch (e) {
      await out.close().catch(() => {})
      await unlink(tmp).catch(() => {})
      if (isCompressedSessionError(e)) throw e
      const code = (e as NodeJS.ErrnoException)?.code
      if (typeof code === 'string' && code.startsWith('ZSTD_')) throw new CompressedSessionError(`compressed session file is corrupt (${(e as Error).message})`)
      throw e
    } finally {
      // made (then counted as a copy) or given up
      this.makingBytes -= written
    }
  }

  /** Removes the least recently used copies not in use until the total is within the bound. */
  private evict(): void {
    let total = this.bytes()
    if (total <= this.maxBytes) return
    const idle = [...this.copies.entries()].filter(([, c]) => c.pins === 0).sort((a, b) => a[1].used - b[1].used)
    for (const [name, c] of idle) {
      if (total <= this.maxBytes) break
      try {
        unlinkSync(c.path)
      } catch (e) {
        if ((e as NodeJS.ErrnoException)?.code !== 'ENOENT') {
          this.log(`unpacked sessions: cannot remove ${c.path}: ${(e as Error).message}`)
          continue
        }
      }
      this.copies.delete(name)
      total -= c.size
    }
  }

  /** Removes the directory when it is its own (a temporary one). */
  close(): void {
    if (this.own && this.dir) rmSync(this.dir, { recursive: true, force: true })
  }
}
