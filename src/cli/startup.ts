// Startup failures in one line each, saying what to do: the user sees
// `gothalo: cannot … : … — do this`, never a stack trace (unless --log-level debug).
// The runtime file lets `gothalo pair` find the bridge that runs on a data dir.
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A startup failure that already says what to do. */
export class StartupError extends Error {}

type Errno = Error & { code?: string; syscall?: string; path?: string; errno?: number }

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'a file is in the way',
  EEXIST: 'a file is in the way',
  ENOENT: 'no such directory',
  ENOSPC: 'no space left on the device',
  EISDIR: 'is a directory',
}

/** What to print for an error thrown while starting the server. */
export function describeStartupError(e: unknown, s: { host: string; port: number; dataDir: string }): string {
  if (e instanceof StartupError) return e.message
  const err = e as Errno
  const code = err?.code ?? ''
  const where = `${s.host}:${s.port}`
  if (err?.syscall === 'listen' || /Failed to start server/.test(err?.message ?? '')) {
    if (code === 'EADDRINUSE' || /in use/.test(err.message))
      return `cannot listen on ${where}: port ${s.port} is already in use (another gothalo?) — stop it, or pick another port with --port or GOTHALO_PORT`
    if (code === 'EADDRNOTAVAIL')
      return `cannot listen on ${where}: ${s.host} is not an address of this machine — use 127.0.0.1 (and tailscale serve for the phone), or an address this machine has`
    if (code === 'EACCES') return `cannot listen on ${where}: permission denied (ports below 1024 need privileges) — pick another port with --port`
    if (code === 'EINVAL')
      return `cannot listen on ${where}: ${s.host} is not a valid address — use an IP address such as 127.0.0.1 with --host or GOTHALO_HOST`
    return `cannot listen on ${where}: ${err.message} — check --host and --port`
  }
  const sqlite = /^SQLITE_/.test(code)
  const fsProblem = code in REASONS || sqlite
  if (fsProblem) {
    const reason = REASONS[code] ?? (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' ? 'cannot write there' : err.message)
    const path = err.path ?? s.dataDir
    return `cannot use the data dir ${s.dataDir} (${path}: ${reason}) — choose a writable one with --data-dir or GOTHALO_DATA_DIR`
  }
  return `cannot start: ${err?.message ?? String(e)} — run with --log-level debug for details`
}

// ---- the runtime file: how `gothalo pair` finds the running bridge ----

export const RUNTIME_FILE = 'bridge.json'

export interface RuntimeInfo {
  /** where the bridge listens, as a URL this machine can reach */
  url: string
  pid: number
  version: string
  /** --public-url, when one was given */
  public_url?: string
  started_at: number
}

/** Written 0600 once the server listens; replaced atomically. */
export function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): void {
  const file = join(dataDir, RUNTIME_FILE)
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(info) + '\n', { mode: 0o600 })
  chmodSync(tmp, 0o600)
  renameSync(tmp, file)
}

export function readRuntimeInfo(dataDir: string): RuntimeInfo | undefined {
  try {
    const v = JSON.parse(readFileSync(join(dataDir, RUNTIME_FILE), 'utf8')) as RuntimeInfo
    return typeof v?.url === 'string' && typeof v.pid === 'number' ? v : undefined
  } catch {
    return undefined
  }
}

/** Removes the runtime file if it is this process's (a newer bridge may have replaced it). */
export function removeRuntimeInfo(dataDir: string, pid = process.pid): void {
  if (readRuntimeInfo(dataDir)?.pid === pid) rmSync(join(dataDir, RUNTIME_FILE), { force: true })
}

/** A URL for reaching a server bound to `host` from this machine. */
export function localUrl(host: string, port: number, https = false): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' || host === '[::]' ? '[::1]' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  return `${https ? 'https' : 'http'}://${h}:${port}`
}
