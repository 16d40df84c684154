// Settings: each a flag with an environment variable of the same meaning (docs/bridge.md).
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { AgentHomes } from './transcript/source'

export interface Settings {
  command: 'serve' | 'pair' | 'devices' | 'devices-revoke' | 'help' | 'version'
  /** the ID for `devices revoke ID` */
  arg?: string
  host: string
  port: number
  herdr: string
  adminToken?: string
  dataDir: string
  demo: boolean
  herdrTimeoutMs: number
}

export class UsageError extends Error {}

type Env = Record<string, string | undefined>

export function agentHomes(env: Env): AgentHomes {
  const home = env.HOME || homedir()
  return {
    home,
    claudeDir: env.CLAUDE_CONFIG_DIR || join(home, '.claude'),
    piDir: env.PI_CODING_AGENT_DIR || join(home, '.pi', 'agent'),
    codexDir: env.CODEX_HOME || join(home, '.codex'),
    xdgStateHome: env.XDG_STATE_HOME || join(home, '.local', 'state'),
    xdgDataHome: env.XDG_DATA_HOME || join(home, '.local', 'share'),
  }
}

const FLAGS: Record<string, { key: keyof Settings; env?: string; bool?: true }> = {
  '--host': { key: 'host', env: 'GOTHALO_HOST' },
  '--port': { key: 'port', env: 'GOTHALO_PORT' },
  '--herdr': { key: 'herdr', env: 'GOTHALO_HERDR' },
  '--admin-token': { key: 'adminToken', env: 'GOTHALO_ADMIN_TOKEN' },
  '--data-dir': { key: 'dataDir', env: 'GOTHALO_DATA_DIR' },
  '--herdr-timeout-ms': { key: 'herdrTimeoutMs', env: 'GOTHALO_HERDR_TIMEOUT_MS' },
  '--demo': { key: 'demo', bool: true },
}

export const HELP = `gothalo — supervise coding agents in herdr panes from a phone

usage:
  gothalo [serve] [flags]        run the bridge (default)
  gothalo --demo                 run with a built-in herdr stand-in and sample sessions
  gothalo pair                   print a one-time pairing code (10 minutes)
  gothalo devices                list paired devices
  gothalo devices revoke ID      revoke a paired device
  gothalo --help | --version

flags (each also an environment variable):
  --host HOST             GOTHALO_HOST             bind address (default 127.0.0.1)
  --port PORT             GOTHALO_PORT             port (default 8787)
  --herdr PATH            GOTHALO_HERDR            herdr executable (default: herdr on PATH)
  --admin-token TOKEN     GOTHALO_ADMIN_TOKEN      admin token (default: generated, stored 0600 in the data dir)
  --data-dir DIR          GOTHALO_DATA_DIR         data directory (default $XDG_DATA_HOME/gothalo or ~/.local/share/gothalo)
  --herdr-timeout-ms MS   GOTHALO_HERDR_TIMEOUT_MS time limit for one herdr call (default 5000)

agent files are found like the agents find them: HOME, CLAUDE_CONFIG_DIR, PI_CODING_AGENT_DIR,
XDG_STATE_HOME, XDG_DATA_HOME.
`

/** Parses argv (without the executable) and the environment; throws UsageError on bad input. */
export function parseSettings(argv: string[], env: Env): Settings {
  const home = env.HOME || homedir()
  const raw: Partial<Record<keyof Settings, string | boolean>> = {}
  for (const f of Object.values(FLAGS)) if (f.env && env[f.env] !== undefined && env[f.env] !== '') raw[f.key] = env[f.env]
  const positional: string[] = []
  let command: Settings['command'] | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--help' || a === '-h') command = 'help'
    else if (a === '--version' || a === '-v') command = 'version'
    else if (a.startsWith('--')) {
      const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined]
      const f = FLAGS[name]
      if (!f) throw new UsageError(`unknown flag: ${name}`)
      if (f.bool) {
        if (inline !== undefined) throw new UsageError(`${name} takes no value`)
        raw[f.key] = true
      } else {
        const v = inline ?? argv[++i]
        if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new UsageError(`${name} needs a value`)
        raw[f.key] = v
      }
    } else positional.push(a)
  }
  if (!command) {
    const [p0, p1, p2, ...rest] = positional
    if (p0 === undefined || p0 === 'serve') {
      if (p0 === 'serve' && p1 !== undefined) throw new UsageError(`unexpected argument: ${p1}`)
      command = 'serve'
    } else if (p0 === 'pair') {
      if (p1 !== undefined) throw new UsageError(`unexpected argument: ${p1}`)
      command = 'pair'
    } else if (p0 === 'devices') {
      if (p1 === undefined) command = 'devices'
      else if (p1 === 'revoke') {
        if (!p2) throw new UsageError('usage: gothalo devices revoke ID')
        if (rest.length) throw new UsageError(`unexpected argument: ${rest[0]}`)
        command = 'devices-revoke'
        raw.arg = p2
      } else throw new UsageError(`unknown devices command: ${p1}`)
    } else throw new UsageError(`unknown command: ${p0}`)
  }
  const port = raw.port === undefined ? 8787 : Number(raw.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`bad port: ${raw.port}`)
  const timeout = raw.herdrTimeoutMs === undefined ? 5000 : Number(raw.herdrTimeoutMs)
  if (!Number.isInteger(timeout) || timeout < 1) throw new UsageError(`bad herdr timeout: ${raw.herdrTimeoutMs}`)
  return {
    command,
    arg: raw.arg as string | undefined,
    host: (raw.host as string) ?? '127.0.0.1',
    port,
    herdr: (raw.herdr as string) ?? 'herdr',
    adminToken: raw.adminToken as string | undefined,
    dataDir: (raw.dataDir as string) ?? join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'gothalo'),
    demo: raw.demo === true,
    herdrTimeoutMs: timeout,
  }
}
