// Native HTTPS (`--tls-cert` / `--tls-key`): the pair is checked at start (a bad or
// mismatched pair is a one-line error), and renewed files — `tailscale cert` and
// certbot replace them by rename — are picked up within seconds, without a
// restart of the bridge: the listener is opened again on the same port with the
// new pair (Bun keeps a listener's certificate for its life). A renewal that does
// not check out keeps the old pair and says why.
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { type FSWatcher, readFileSync, watch } from 'node:fs'
import { basename, dirname } from 'node:path'

export interface TlsPair {
  cert: string
  key: string
  /** the certificate's fingerprint: a renewal is a new one */
  fingerprint: string
  /** when the certificate stops being valid */
  validTo: string
}

/** The pair from its files, checked: a message that says what is wrong otherwise. */
export function loadTls(certPath: string, keyPath: string): TlsPair {
  let cert: string
  let key: string
  try {
    cert = readFileSync(certPath, 'utf8')
  } catch (e) {
    throw new Error(`cannot read the TLS certificate ${certPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  try {
    key = readFileSync(keyPath, 'utf8')
  } catch (e) {
    throw new Error(`cannot read the TLS key ${keyPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  let x509: X509Certificate
  try {
    x509 = new X509Certificate(cert)
  } catch {
    throw new Error(`${certPath} is not a PEM certificate`)
  }
  let pk: ReturnType<typeof createPrivateKey>
  try {
    pk = createPrivateKey(key)
  } catch {
    throw new Error(`${keyPath} is not a PEM private key`)
  }
  if (!x509.checkPrivateKey(pk)) throw new Error(`the TLS key ${keyPath} does not belong to the certificate ${certPath}`)
  return { cert, key, fingerprint: x509.fingerprint256, validTo: x509.validTo }
}

/**
 * Watches the two files' directories (a rename replaces the file, so the file's own
 * watch would go dead) and calls `renewed` with a new, valid pair, `failed` with why
 * a changed one is not. Quiet for `settleMs` after the last change, so a cert and a
 * key written one after the other are read together. Returns the stop.
 */
export function watchTls(
  certPath: string,
  keyPath: string,
  current: TlsPair,
  on: { renewed: (p: TlsPair) => void; failed: (why: string) => void },
  settleMs = 500,
): () => void {
  const names = new Set([basename(certPath), basename(keyPath)])
  let timer: ReturnType<typeof setTimeout> | undefined
  let last = current.fingerprint + current.key.length
  const check = () => {
    timer = undefined
    let p: TlsPair
    try {
      p = loadTls(certPath, keyPath)
    } catch (e) {
      on.failed((e as Error).message)
      return
    }
    const stamp = p.fingerprint + p.key.length
    if (stamp === last) return
    last = stamp
    on.renewed(p)
  }
  const watchers: FSWatcher[] = []
  for (const dir of new Set([dirname(certPath), dirname(keyPath)])) {
    const w = watch(dir, (_event, name) => {
      if (name && !names.has(String(name))) return
      clearTimeout(timer)
      timer = setTimeout(check, settleMs)
    })
    w.on('error', () => {})
    watchers.push(w)
  }
  return () => {
    clearTimeout(timer)
    for (const w of watchers) w.close()
  }
}
