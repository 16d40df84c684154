// The admin token: given by flag/env, or generated on first start and kept in
// `<dataDir>/admin-token` (0600, in a 0700 directory) so it survives restarts.
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { newSecretToken } from './store'

export const ADMIN_TOKEN_FILE = 'admin-token'

export function loadOrCreateAdminToken(dataDir: string, given?: string): { token: string; created: boolean } {
  if (given) return { token: given, created: false }
  // mode applies only to directories this call creates; an existing data dir is the user's choice
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const file = join(dataDir, ADMIN_TOKEN_FILE)
  const existing = readToken(file)
  if (existing) return { token: existing, created: false }
  const token = newSecretToken()
  try {
    // 'wx': if another process (server and CLI starting together) wrote it first, use theirs
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: existing === '' ? 'w' : 'wx' })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    const theirs = readToken(file)
    if (theirs) return { token: theirs, created: false }
    throw e
  }
  chmodSync(file, 0o600) // the create mode went through the umask; make it exact
  return { token, created: true }
}

/** The token in the file; '' for an empty file; undefined when there is no file. Tightens a loose mode. */
function readToken(file: string): string | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
  try {
    if (statSync(file).mode & 0o077) chmodSync(file, 0o600)
  } catch {
    // not ours to change (another owner): still usable
  }
  return text.trim()
}
