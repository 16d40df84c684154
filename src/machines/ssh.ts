// The SSH transport: `ssh -N -L` from a free loopback port here to the remote
// bridge's loopback port, with herdr's non-interactive options (never a prompt:
// an unknown host key or a refused key fails at once, with ssh's own line).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import type { Target } from './target'

type SshTarget = Extract<Target, { kind: 'ssh' }>

export type Tunnel = { ok: true; base: string; close: () => void; exited: Promise<string> } | { ok: false; error: string }

export interface TunnelOptions {
  /** an ssh_config file (`-F`): tests name their own known_hosts and key there (GOTHALO_SSH_CONFIG) */
  config?: string
  /** the ssh executable (default ssh on PATH) */
  ssh?: string
  /** how long to wait for the forward to listen (ConnectTimeout is 10 s) */
  readyMs?: number
}

export const SSH_OPTIONS = [
  'BatchMode=yes',
  'NumberOfPasswordPrompts=0',
  'StrictHostKeyChecking=yes',
  'ConnectTimeout=10',
  'ConnectionAttempts=1',
  'ServerAliveInterval=15',
  'ServerAliveCountMax=4',
  'ExitOnForwardFailure=yes',
]

/** ssh's argv for a tunnel from 127.0.0.1:localPort to the remote's loopback bridge port. */
export function sshArgs(t: SshTarget, localPort: number, config?: string): string[] {
  return [
    '-N',
    ...(config ? ['-F', config] : []),
    ...SSH_OPTIONS.flatMap((o) => ['-o', o]),
    '-L',
    `127.0.0.1:${localPort}:127.0.0.1:${t.remotePort}`,
    '-p',
    String(t.port),
    ...(t.user ? ['-l', t.user] : []),
    '--',
    t.host,
  ]
}

function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

async function listening(port: number): Promise<boolean> {
  try {
    const s = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } })
    s.end()
    return true
  } catch {
    return false
  }
}

/**
 * Whether the listener on loopback `port` is a socket of process `pid` (Linux:
 * /proc/net/tcp's LISTEN rows for that port, then the process's descriptors);
 * undefined where that cannot be told (no /proc). The port is free when it is
 * picked but not held until ssh binds it: another local program that takes it
 * meanwhile would be sent this bridge's token for the remote.
 */
export function listenerOf(pid: number, port: number): boolean | undefined {
  let table: string
  try {
    table = readFileSync('/proc/net/tcp', 'utf8') + readFileSync('/proc/net/tcp6', 'utf8')
  } catch {
    return undefined
  }
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
  const inodes = new Set<string>()
  for (const line of table.split('\n')) {
    // sl local_address rem_address st … inode: st 0A is LISTEN
    const f = line.trim().split(/\s+/)
    if (f[1]?.endsWith(hexPort) && f[3] === '0A' && f[9]) inodes.add(f[9])
  }
  if (inodes.size === 0) return false
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return undefined
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m && inodes.has(m[1]!)) return true
    } catch {}
  }
  return false
}

/** The last meaningful line ssh wrote (its reason), without warnings about known hosts being added. */
export function sshReason(stderr: string, code: number | null): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^Warning: Permanently added/.test(l))
  return lines.at(-1) ?? `ssh exited ${code ?? '(killed)'}`
}

export async function openTunnel(t: SshTarget, o: TunnelOptions = {}): Promise<Tunnel> {
  const port = freePort()
  const config = o.config ?? (process.env.GOTHALO_SSH_CONFIG || undefined)
  const proc = Bun.spawn([o.ssh ?? 'ssh', ...sshArgs(t, port, config)], { stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' })
  let stderr = ''
  const reading = (async () => {
    const dec = new TextDecoder()
    for await (const chunk of proc.stderr) stderr = (stderr + dec.decode(chunk)).slice(-4096)
  })()
  const exited = proc.exited.then(async (code) => {
    await reading.catch(() => {})
    return sshReason(stderr, code)
  })
  let done = false
  void exited.then(() => (done = true))
  const deadline = Date.now() + (o.readyMs ?? 15_000)
  while (!done && Date.now() < deadline) {
    if (await listening(port)) {
      // the listener must be ssh's own: another program that took the port first is not sent the token
      if (listenerOf(proc.pid, port) === false) {
        proc.kill()
        return { ok: false, error: `port ${port} was taken by another program before ssh could listen on it: the tunnel was not used` }
      }
      return { ok: true, base: `http://127.0.0.1:${port}`, close: () => proc.kill(), exited }
    }
    await Promise.race([Bun.sleep(100), exited])
  }
  proc.kill()
  return { ok: false, error: done ? await exited : 'the tunnel did not open in time' }
}
