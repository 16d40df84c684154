// The bridge's VAPID key pair (RFC 8292): generated on first start in the data
// dir, mode 0600, and the same from then on (a new pair would orphan every
// subscription the phones made with the old public key).
import webpush from 'web-push'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface VapidKeys {
  publicKey: string
  privateKey: string
}

export const VAPID_FILE = 'vapid.json'

const b64url = /^[A-Za-z0-9_-]+$/

function valid(k: unknown): k is VapidKeys {
  const v = k as VapidKeys
  return (
    !!v &&
    typeof v.publicKey === 'string' &&
    typeof v.privateKey === 'string' &&
    b64url.test(v.publicKey) &&
    b64url.test(v.privateKey) &&
    Buffer.from(v.publicKey, 'base64url').length === 65 &&
    Buffer.from(v.privateKey, 'base64url').length === 32
  )
}

/** Reads `<dataDir>/vapid.json`, or makes it (0600). An unreadable file is an error, never silently replaced. */
export function loadOrCreateVapidKeys(dataDir: string): { keys: VapidKeys; created: boolean } {
  const path = join(dataDir, VAPID_FILE)
  if (existsSync(path)) {
    let keys: unknown
    try {
      keys = JSON.parse(readFileSync(path, 'utf8'))
    } catch (e) {
      throw new Error(`${path}: not a VAPID key file (${(e as Error).message}); move it away to generate a new pair`)
    }
    if (!valid(keys)) throw new Error(`${path}: not a VAPID key file; move it away to generate a new pair`)
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
    return { keys: { publicKey: keys.publicKey, privateKey: keys.privateKey }, created: false }
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const keys = webpush.generateVAPIDKeys()
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify({ publicKey: keys.publicKey, privateKey: keys.privateKey }) + '\n', { mode: 0o600 })
  renameSync(tmp, path)
  return { keys, created: true }
}
