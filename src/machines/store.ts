// The machines this bridge merges (`gothalo machines add|remove`), with the token
// each remote bridge gave it: <data dir>/machines.json, 0600 in a 0700 directory,
// written whole and renamed into place so a running bridge never reads half of it.
// A token never leaves this file: list and /machines show neither it nor its hash.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const MACHINES_FILE = 'machines.json'

export interface StoredMachine {
  label: string
  target: string
  /** this bridge's device id at the remote (its audit rows name it) */
  device_id: string
  token: string
  added_at: number
}

export const machinesPath = (dataDir: string): string => join(dataDir, MACHINES_FILE)

/** The stored machines; none when the file is absent. A file that is not ours is an error, not an empty list. */
export function readMachines(dataDir: string): StoredMachine[] {
  const p = machinesPath(dataDir)
  if (!existsSync(p)) return []
  const data = JSON.parse(readFileSync(p, 'utf8')) as { version?: number; machines?: unknown }
  if (data?.version !== 1 || !Array.isArray(data.machines)) throw new Error(`${p}: not a gothalo machines file`)
  return data.machines.filter(
    (m): m is StoredMachine => typeof m?.label === 'string' && typeof m.target === 'string' && typeof m.token === 'string' && typeof m.device_id === 'string',
  )
}

export function writeMachines(dataDir: string, machines: StoredMachine[]): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const p = machinesPath(dataDir)
  const tmp = `${p}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify({ version: 1, machines }, null, 2)}\n`, { mode: 0o600 })
  chmodSync(tmp, 0o600) // a umask cannot widen it, an existing tmp cannot keep its mode
  renameSync(tmp, p)
}

/** What changes when the file is rewritten (a rename gives a new inode). */
export function machinesStamp(dataDir: string): string {
  try {
    const s = statSync(machinesPath(dataDir))
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return 'absent'
  }
}
