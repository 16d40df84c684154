// The command line: commands, and settings that are each a flag with an
// environment variable of the same meaning (docs/bridge.md, "Running it").
// One parser (node:util parseArgs) for every command; the help text is made
// from the same tables, so a command or flag cannot be missing from --help.
import { homedir } from 'node:os'
import { isAbsolute, join, resolve as resolvePath } from 'node:path'
import { parseArgs } from 'node:util'
import type { AgentHomes } from '../transcript/source'
import { SCOPES, type Scope, scopesFromList } from '../auth/scopes'

export type LogLevel = 'error' | 'warn' | 'info' | 'debug'
export type LogFormat = 'text' | 'json'

export interface Settings {
  command: Command
  /** the command's own arguments (e.g. the ID of `devices revoke ID`) */
  args?: string[]
  /** the ID for `devices revoke ID` (args[0]) */
  arg?: string
  host: string
  port: number
  herdr: string
  adminToken?: string
  dataDir: string
  /** the data dir was named (flag or environment), not the default */
  dataDirGiven?: boolean
  demo: boolean
  herdrTimeoutMs: number
  /** the address the phone uses, e.g. a tailscale serve URL (no trailing slash) */
  publicUrl?: string
  logLevel?: LogLevel
  logFormat?: LogFormat
  /** `service install`: write the unit but do not enable or start it */
  noStart?: boolean
  /** `pair --scopes read,answer`: what the paired device may do (default every scope but admin) */
  scopes?: Scope[]
  /** `audit --since`: unix ms */
  since?: number
  /** `audit --json`: one JSON object per line */
  json?: boolean
  /** the directories agents may be started in (default: the home directory) */
  projectRoots?: string[]
  /** behind tailscale serve: the one tailnet login allowed */
  tailscaleUser?: string
  /** `machines add --code`: a pairing code made on the remote bridge */
  code?: string
  /** `expose --off` */
  off?: boolean
  /** `service install --expose` */
  expose?: boolean
  /** the tailscale executable `expose` runs */
  tailscale?: string
  /** native HTTPS: the certificate and its key (PEM files; renewed files are picked up) */
  tlsCert?: string
  tlsKey?: string
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

/** The commands: the words that name each, its arguments, and one line for --help. */
export const COMMANDS = [
  { command: 'serve', words: ['serve'], usage: 'gothalo [serve] [flags]', summary: 'run the bridge (the default)' },
  { command: 'serve', words: ['--demo'], usage: 'gothalo --demo', summary: 'run with a built-in herdr stand-in and sample sessions', helpOnly: true },
  { command: 'pair', words: ['pair'], usage: 'gothalo pair', summary: 'a one-time pairing code, its URL and QR code (asks the running bridge)' },
  {
    command: 'pair',
    words: ['pair'],
    usage: 'gothalo pair --scopes read,…',
    summary: `pair a device that may do only these (${SCOPES.join(', ')}; default all but admin)`,
    helpOnly: true,
  },
  { command: 'devices', words: ['devices'], usage: 'gothalo devices', summary: 'list paired devices and their scopes' },
  {
    command: 'devices-revoke',
    words: ['devices', 'revoke'],
    args: ['ID'],
    usage: 'gothalo devices revoke ID',
    summary: 'revoke a paired device (its open sockets close)',
  },
  {
    command: 'service-install',
    words: ['service', 'install'],
    usage: 'gothalo service install',
    summary: 'run the bridge as a user service (systemd on Linux, launchd on macOS) with these settings',
  },
  { command: 'service-uninstall', words: ['service', 'uninstall'], usage: 'gothalo service uninstall', summary: 'stop and remove that service' },
  {
    command: 'expose',
    words: ['expose'],
    usage: 'gothalo expose [--off]',
    summary: 'put the bridge behind tailscale serve (HTTPS on your tailnet), remember that URL, print a pairing QR code; --off undoes it',
  },
  {
    command: 'audit',
    words: ['audit'],
    usage: 'gothalo audit [--since T] [--json]',
    summary: 'what was done from phones, newest first (T: 2026-12-01, an ISO time, or 30m, 24h, 7d ago)',
  },
  { command: 'machines-list', words: ['machines'], usage: 'gothalo machines [list]', summary: 'the other machines this bridge merges (their bridges)' },
  { command: 'machines-list', words: ['machines', 'list'], usage: 'gothalo machines list', summary: 'the same' },
  {
    command: 'machines-add',
    words: ['machines', 'add'],
    args: ['LABEL', 'TARGET'],
    usage: 'gothalo machines add LABEL TARGET --code CODE',
    summary: 'merge another machine: TARGET ssh://[user@]host[:port], https://… or http://127.0.0.1:PORT; CODE from `gothalo pair` there',
  },
  { command: 'machines-remove', words: ['machines', 'remove'], args: ['LABEL'], usage: 'gothalo machines remove LABEL', summary: 'stop merging a machine' },
  {
    command: 'machines-import',
    words: ['machines', 'import'],
    usage: 'gothalo machines import',
    summary: "offer herdr's saved SSH machines (herdr machine list --json)",
  },
  // dispatched by main.ts before these flags are parsed (src/cli/explain.ts has its own)
  {
    command: 'serve',
    words: ['explain'],
    usage: 'gothalo explain --agent KIND FILE | --pane ID',
    summary: 'why a card says what it says: the regions and rule ids (--help for more)',
    helpOnly: true,
  },
  { command: 'help', words: ['help'], usage: 'gothalo --help | --version', summary: 'this help, or the version' },
] as const satisfies readonly { command: string; words: readonly string[]; args?: readonly string[]; usage: string; summary: string; helpOnly?: boolean }[]

export type Command = (typeof COMMANDS)[number]['command'] | 'version'

interface Flag {
  key: keyof Settings
  env?: string
  value?: string
  bool?: true
  /** one command's own option, not a setting of the bridge: no environment variable */
  commandOption?: true
  /** may be given more than once (its environment variable is a `:`-separated list) */
  multiple?: true
  help: string
}

/** Every flag, in --help order. */
export const FLAGS: Record<string, Flag> = {
  host: { key: 'host', env: 'GOTHALO_HOST', value: 'HOST', help: 'bind address (default 127.0.0.1; anything else is reachable from the network)' },
  port: { key: 'port', env: 'GOTHALO_PORT', value: 'PORT', help: 'port (default 8787; 0 = any free port)' },
  herdr: { key: 'herdr', env: 'GOTHALO_HERDR', value: 'PATH', help: 'herdr executable (default: herdr on PATH)' },
  'herdr-timeout-ms': { key: 'herdrTimeoutMs', env: 'GOTHALO_HERDR_TIMEOUT_MS', value: 'MS', help: 'time limit for one herdr call (default 5000)' },
  'admin-token': { key: 'adminToken', env: 'GOTHALO_ADMIN_TOKEN', value: 'TOKEN', help: 'admin token (default: generated, stored 0600 in the data dir)' },
  'data-dir': { key: 'dataDir', env: 'GOTHALO_DATA_DIR', value: 'DIR', help: 'data dir (default $XDG_DATA_HOME/gothalo or ~/.local/share/gothalo)' },
  'public-url': {
    key: 'publicUrl',
    env: 'GOTHALO_PUBLIC_URL',
    value: 'URL',
    help: 'the address the phone uses, e.g. https://host.tailnet.ts.net:5338 (pairing URL, QR code)',
  },
  'project-root': {
    key: 'projectRoots',
    env: 'GOTHALO_PROJECT_ROOTS',
    value: 'DIR',
    multiple: true,
    help: 'where the phone may start agents (repeatable; default $HOME)',
  },
  'tls-cert': {
    key: 'tlsCert',
    env: 'GOTHALO_TLS_CERT',
    value: 'FILE',
    help: 'serve HTTPS with this PEM certificate (with --tls-key; renewed files are picked up)',
  },
  'tls-key': { key: 'tlsKey', env: 'GOTHALO_TLS_KEY', value: 'FILE', help: "the certificate's PEM private key" },
  'tailscale-user': {
    key: 'tailscaleUser',
    env: 'GOTHALO_TAILSCALE_USER',
    value: 'LOGIN',
    help: 'behind tailscale serve: refuse requests from any other tailnet login (e.g. you@github), token or not',
  },
  'log-level': { key: 'logLevel', env: 'GOTHALO_LOG_LEVEL', value: 'LEVEL', help: 'error | warn | info (default) | debug (debug also prints stack traces)' },
  'log-format': { key: 'logFormat', env: 'GOTHALO_LOG_FORMAT', value: 'FMT', help: 'text (default) | json, one object per line' },
  demo: { key: 'demo', bool: true, help: 'serve the built-in demo instead of a real herdr' },
  'no-start': { key: 'noStart', bool: true, help: 'service install: write the unit, do not enable or start it' },
  scopes: { key: 'scopes', value: 'LIST', commandOption: true, help: `pair: what the device may do, comma-separated (${SCOPES.join(', ')})` },
  since: { key: 'since', value: 'T', commandOption: true, help: 'audit: rows from then on (an ISO date or time, or 30m, 24h, 7d ago)' },
  expose: { key: 'expose', bool: true, commandOption: true, help: 'service install: also put the service behind tailscale serve (as gothalo expose)' },
  off: { key: 'off', bool: true, commandOption: true, help: 'expose: remove the tailscale serve config and the remembered URL' },
  tailscale: { key: 'tailscale', env: 'GOTHALO_TAILSCALE', value: 'PATH', help: 'expose: the tailscale executable (default: tailscale on PATH)' },
  json: { key: 'json', bool: true, commandOption: true, help: 'audit: one JSON object per line' },
  code: { key: 'code', value: 'CODE', commandOption: true, help: 'machines add: the pairing code made on the remote machine (gothalo pair there)' },
}

function helpText(): string {
  const cmds = COMMANDS.map((c) => `  ${c.usage.padEnd(30)} ${c.summary}`).join('\n')
  const flags = Object.entries(FLAGS)
    .map(([name, f]) => {
      const left = `--${name}${f.value ? ` ${f.value}` : ''}`
      return `  ${left.padEnd(24)} ${(f.env ?? '').padEnd(25)} ${f.help}`
    })
    .join('\n')
  return `gothalo — supervise coding agents in herdr panes from a phone

usage:
${cmds}

flags (each also an environment variable):
${flags}

agent files are found like the agents find them: HOME, CLAUDE_CONFIG_DIR, PI_CODING_AGENT_DIR,
XDG_STATE_HOME, XDG_DATA_HOME.
`
}

export const HELP = helpText()

const LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug']

/** `https://host:5338/` → `https://host:5338`; anything but an http(s) URL is refused. */
export function normalizePublicUrl(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new UsageError(`bad public URL: ${raw} (want http(s)://host[:port][/path])`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`bad public URL: ${raw} (want http or https)`)
  if (u.search || u.hash) throw new UsageError(`bad public URL: ${raw} (no ?query or #fragment)`)
  return u.toString().replace(/\/+$/, '')
}

/** Parses argv (without the executable) and the environment; throws UsageError on bad input. */
export function parseSettings(argv: string[], env: Env): Settings {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  }
  for (const [name, f] of Object.entries(FLAGS)) options[name] = f.multiple ? { type: 'string', multiple: true } : { type: f.bool ? 'boolean' : 'string' }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true })
  } catch (e) {
    throw new UsageError(usageMessage(e as Error & { code?: string }))
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>
  const raw: Partial<Record<keyof Settings, string | boolean | string[]>> = {}
  for (const [name, f] of Object.entries(FLAGS)) {
    const fromEnv = f.env ? env[f.env] : undefined
    if (fromEnv !== undefined && fromEnv !== '') raw[f.key] = f.multiple ? fromEnv.split(':').filter(Boolean) : fromEnv
    if (values[name] !== undefined) raw[f.key] = values[name]!
  }

  let command: Command
  let args: string[] = []
  if (values.help) command = 'help'
  else if (values.version) command = 'version'
  else ({ command, args } = matchCommand(parsed.positionals))

  const port = raw.port === undefined ? 8787 : Number(raw.port)
  if (!/^\d+$/.test(String(raw.port ?? 8787)) || port > 65535) throw new UsageError(`bad port: ${raw.port}`)
  const timeout = raw.herdrTimeoutMs === undefined ? 5000 : Number(raw.herdrTimeoutMs)
  if (!Number.isInteger(timeout) || timeout < 1) throw new UsageError(`bad herdr timeout: ${raw.herdrTimeoutMs}`)
  const logLevel = (raw.logLevel as string | undefined) ?? 'info'
  if (!LEVELS.includes(logLevel as LogLevel)) throw new UsageError(`bad log level: ${logLevel} (want ${LEVELS.join(' | ')})`)
  const logFormat = (raw.logFormat as string | undefined) ?? 'text'
  if (logFormat !== 'text' && logFormat !== 'json') throw new UsageError(`bad log format: ${logFormat} (want text | json)`)
  const dataDir = raw.dataDir as string | undefined
  if (dataDir === '') throw new UsageError('--data-dir needs a directory')
  const home = env.HOME || homedir()
  return {
    command,
    args,
    arg: args[0],
    host: (raw.host as string) ?? '127.0.0.1',
    port,
    herdr: (raw.herdr as string) ?? 'herdr',
    adminToken: raw.adminToken as string | undefined,
    dataDir: dataDir ?? join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'gothalo'),
    dataDirGiven: dataDir !== undefined,
    demo: raw.demo === true,
    herdrTimeoutMs: timeout,
    publicUrl: raw.publicUrl === undefined ? undefined : normalizePublicUrl(raw.publicUrl as string),
    logLevel: logLevel as LogLevel,
    logFormat,
    noStart: raw.noStart === true,
    scopes: raw.scopes === undefined ? undefined : scopesOrThrow(String(raw.scopes)),
    since: raw.since === undefined ? undefined : sinceOf(String(raw.since), Date.now()),
    json: raw.json === true,
    code: typeof raw.code === 'string' && raw.code !== '' ? raw.code : undefined,
    off: raw.off === true,
    expose: raw.expose === true,
    tailscale: typeof raw.tailscale === 'string' && raw.tailscale !== '' ? raw.tailscale : undefined,
    ...tlsOf(raw.tlsCert as string | undefined, raw.tlsKey as string | undefined),
    tailscaleUser: typeof raw.tailscaleUser === 'string' && raw.tailscaleUser !== '' ? raw.tailscaleUser : undefined,
    projectRoots: raw.projectRoots === undefined ? undefined : projectRootsOf(raw.projectRoots as string[], home),
  }
}

/** `--tls-cert` and `--tls-key` go together. */
function tlsOf(cert: string | undefined, key: string | undefined): { tlsCert?: string; tlsKey?: string } {
  if (!cert && !key) return {}
  if (!cert || !key) throw new UsageError('--tls-cert and --tls-key go together: give both files')
  return { tlsCert: resolvePath(cert), tlsKey: resolvePath(key) }
}

/** `--project-root`: absolute directories (`~` is the home directory). */
function projectRootsOf(dirs: string[], home: string): string[] {
  return dirs.map((d) => {
    const p = d === '~' ? home : d.startsWith('~/') ? join(home, d.slice(2)) : d
    if (!isAbsolute(p)) throw new UsageError(`--project-root must be an absolute directory: ${d}`)
    return p
  })
}

function scopesOrThrow(list: string): Scope[] {
  const r = scopesFromList(list)
  if ('error' in r) throw new UsageError(r.error)
  return r.scopes
}

/** `--since`: an ISO date or time, or a span ago (`30m`, `24h`, `7d`); unix ms. */
export function sinceOf(raw: string, now: number): number {
  const span = /^(\d+)([mhd])$/.exec(raw)
  if (span) return now - Number(span[1]) * { m: 60_000, h: 3600_000, d: 86_400_000 }[span[2] as 'm' | 'h' | 'd']
  const t = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN
  if (Number.isNaN(t)) throw new UsageError(`bad --since: ${raw} (want 2026-12-01, an ISO time, or 30m, 24h, 7d)`)
  return t
}

/** The longest command whose words start the positionals; its declared arguments must follow exactly. */
function matchCommand(positionals: string[]): { command: Command; args: string[] } {
  if (positionals.length === 0) return { command: 'serve', args: [] }
  const candidates = COMMANDS.filter((c) => !('helpOnly' in c) && c.words.every((w, i) => positionals[i] === w)).sort((a, b) => b.words.length - a.words.length)
  const c = candidates[0]
  if (!c) {
    const group = COMMANDS.filter((x) => x.words.length > 1 && x.words[0] === positionals[0])
    if (group.length && positionals.length > 1) throw new UsageError(`unknown ${positionals[0]} command: ${positionals[1]}`)
    if (group.length) throw new UsageError(`usage: ${group.map((g) => g.usage).join(' | ')}`)
    throw new UsageError(`unknown command: ${positionals[0]}`)
  }
  const want = 'args' in c ? c.args.length : 0
  const args = positionals.slice(c.words.length)
  // `devices revoke` without its ID, or `devices` followed by a word that is no subcommand
  if (args.length < want) throw new UsageError(`usage: ${c.usage}`)
  if (args.length > want) {
    const sub = COMMANDS.some((x) => x.words.length > c.words.length && x.words[0] === c.words[0])
    throw new UsageError(sub && want === 0 ? `unknown ${c.words[0]} command: ${args[0]}` : `unexpected argument: ${args[want]}`)
  }
  return { command: c.command, args }
}

/** parseArgs' messages, in this CLI's words. */
function usageMessage(e: Error & { code?: string }): string {
  const flag = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1]
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag: ${flag ?? e.message}`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take an argument/.test(e.message) ? `${flag} takes no value` : `${flag} needs a value`
    default:
      return e.message
  }
}
