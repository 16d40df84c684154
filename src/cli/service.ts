// `gothalo service install|uninstall`: keep the bridge running as a user
// service with the settings given now — a systemd user unit on Linux, a
// launchd agent on macOS. The unit texts are pure functions (tested as text);
// running systemctl/launchctl is the thin edge, skipped with --no-start.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { Settings } from './config'
import { exposeCommand } from './admin'
import type { Run } from '../link/expose'

export const SYSTEMD_UNIT = 'gothalo.service'
export const LAUNCHD_LABEL = 'dev.gothalo.bridge'

/** What the service runs: the program, its arguments, and the environment it needs. */
export interface ServiceSpec {
  argv: string[]
  env: Record<string, string>
  /** launchd: where stdout/stderr go (systemd uses the journal) */
  logFile: string
}

type Env = Record<string, string | undefined>

/**
 * The agents' and herdr's own overrides: the service must find the same files the user's shell does.
 * PATH too: a service's own is minimal, and whether an agent is installed (POST /agent-start's 503) is
 * judged on it, so it carries the installing shell's.
 */
export const CARRIED_ENV = ['PATH', 'CLAUDE_CONFIG_DIR', 'PI_CODING_AGENT_DIR', 'XDG_STATE_HOME', 'XDG_DATA_HOME', 'HERDR_SOCKET_PATH'] as const

/**
 * The service's command line from the user's settings. Paths are made absolute
 * (a service has no working directory and a minimal PATH); the admin token is
 * never written into a unit file — the service reads the data dir's token file.
 */
export function serviceSpec(s: Settings, self: string[], env: Env, which: (cmd: string) => string | null = Bun.which): ServiceSpec {
  const herdr = s.herdr.includes('/') ? resolve(s.herdr) : (which(s.herdr) ?? s.herdr)
  const argv = [
    ...self,
    'serve',
    '--host',
    s.host,
    '--port',
    String(s.port),
    '--herdr',
    herdr,
    '--herdr-timeout-ms',
    String(s.herdrTimeoutMs),
    '--data-dir',
    resolve(s.dataDir),
  ]
  if (s.publicUrl) argv.push('--public-url', s.publicUrl)
  for (const r of s.projectRoots ?? []) argv.push('--project-root', resolve(r))
  if (s.tailscaleUser) argv.push('--tailscale-user', s.tailscaleUser)
  if (s.tlsCert && s.tlsKey) argv.push('--tls-cert', resolve(s.tlsCert), '--tls-key', resolve(s.tlsKey))
  argv.push('--log-level', s.logLevel ?? 'info', '--log-format', s.logFormat ?? 'text')
  const carried: Record<string, string> = {}
  for (const k of CARRIED_ENV) if (env[k]) carried[k] = env[k]!
  const home = env.HOME || homedir()
  return { argv, env: carried, logFile: join(home, 'Library', 'Logs', 'gothalo.log') }
}

/** One systemd argument: quoted when needed; `%` and `$` escaped so systemd passes them through. */
export function systemdQuote(arg: string): string {
  const escaped = arg.replace(/%/g, '%%').replace(/\$/g, '$$$$')
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

export function systemdUnit(spec: ServiceSpec): string {
  const env = Object.entries(spec.env)
    .map(([k, v]) => `Environment=${systemdQuote(`${k}=${v}`)}\n`)
    .join('')
  return `# Written by \`gothalo service install\`; remove with \`gothalo service uninstall\`.
[Unit]
Description=gothalo: supervise coding agents in herdr panes from a phone
After=network.target

[Service]
Type=simple
ExecStart=${spec.argv.map(systemdQuote).join(' ')}
${env}Restart=on-failure
RestartSec=3
# Startup errors are one line with what to do: \`journalctl --user -u ${SYSTEMD_UNIT}\`.

[Install]
WantedBy=default.target
`
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export function launchdPlist(spec: ServiceSpec): string {
  const args = spec.argv.map((a) => `    <string>${xml(a)}</string>\n`).join('')
  const envEntries = Object.entries(spec.env)
  const env = envEntries.length
    ? `  <key>EnvironmentVariables</key>\n  <dict>\n${envEntries.map(([k, v]) => `    <key>${xml(k)}</key>\n    <string>${xml(v)}</string>\n`).join('')}  </dict>\n`
    : ''
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`gothalo service install\`; remove with \`gothalo service uninstall\`. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${args}  </array>
${env}  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>5</integer>
  <key>StandardOutPath</key>
  <string>${xml(spec.logFile)}</string>
  <key>StandardErrorPath</key>
  <string>${xml(spec.logFile)}</string>
</dict>
</plist>
`
}

export type Platform = 'linux' | 'darwin'

/** Where the unit goes: the systemd user unit dir or ~/Library/LaunchAgents. */
export function unitPath(platform: Platform, env: Env): string {
  const home = env.HOME || homedir()
  if (platform === 'darwin') return join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`)
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'systemd', 'user', SYSTEMD_UNIT)
}

/** The commands that enable and start (or stop) the service. */
export function controlCommands(platform: Platform, action: 'start' | 'stop', path: string, uid: number): string[][] {
  if (platform === 'darwin')
    return action === 'start' ? [['launchctl', 'bootstrap', `gui/${uid}`, path]] : [['launchctl', 'bootout', `gui/${uid}/${LAUNCHD_LABEL}`]]
  return action === 'start'
    ? [
        ['systemctl', '--user', 'daemon-reload'],
        ['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT],
      ]
    : [
        ['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT],
        ['systemctl', '--user', 'daemon-reload'],
      ]
}

export interface ServiceOptions {
  /** how to run this program again: [executable] or [bun, main.ts] */
  self: string[]
  platform?: string
  env?: Env
  /** runs one control command; returns its exit code and stderr */
  run?: (argv: string[]) => { code: number; stderr: string }
  /** runs tailscale for --expose (tests: a fake) */
  tailscaleRun?: Run
  /** where a failure's line goes: stderr for the executable; with the other lines when absent */
  err?: (line: string) => void
}

function defaultRun(argv: string[]): { code: number; stderr: string } {
  try {
    const r = Bun.spawnSync(argv, { stdin: 'ignore', stdout: 'ignore', stderr: 'pipe' })
    return { code: r.exitCode ?? 1, stderr: r.stderr.toString().trim() }
  } catch (e) {
    return { code: 127, stderr: (e as Error).message }
  }
}

export async function runServiceCommand(s: Settings, out: (line: string) => void, o: ServiceOptions): Promise<number> {
  const platform = o.platform ?? process.platform
  const fail = o.err ?? out
  if (platform !== 'linux' && platform !== 'darwin') {
    fail(`gothalo service: ${platform} is not supported (systemd on Linux, launchd on macOS)`)
    return 1
  }
  const env = o.env ?? process.env
  const run = o.run ?? defaultRun
  const path = unitPath(platform, env)
  const uid = process.getuid?.() ?? 0
  const control = (action: 'start' | 'stop'): boolean => {
    for (const argv of controlCommands(platform, action, path, uid)) {
      const r = run(argv)
      if (r.code !== 0) {
        fail(`\`${argv.join(' ')}\` failed (${r.code}${r.stderr ? `: ${r.stderr}` : ''})`)
        return false
      }
    }
    return true
  }
  const manual = (action: 'start' | 'stop') => controlCommands(platform, action, path, uid).map((a) => `  ${a.join(' ')}`)

  if (s.command === 'service-uninstall') {
    if (!existsSync(path)) {
      out(`no service installed (${path} does not exist)`)
      return 0
    }
    if (!s.noStart && !control('stop')) out('continuing: removing the unit file anyway')
    rmSync(path, { force: true })
    out(`removed ${path}`)
    return 0
  }

  if (!o.self.every((p, i) => i > 0 || isAbsolute(p))) {
    fail(`gothalo service: cannot tell where this program is (${o.self[0]}); install it first (npm run install-bin)`)
    return 1
  }
  const spec = serviceSpec(s, o.self, env)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, platform === 'darwin' ? launchdPlist(spec) : systemdUnit(spec), { mode: 0o644 })
  out(`wrote ${path}`)
  if (o.self.length > 1) out(`note: the service runs this source checkout (${o.self[1]}); an installed binary (npm run install-bin) survives moving it`)
  if (s.adminToken) out(`note: the admin token is not written into the unit; the service reads ${join(resolve(s.dataDir), 'admin-token')}`)
  if (!spec.argv.includes('--herdr') || !isAbsolute(spec.argv[spec.argv.indexOf('--herdr') + 1]))
    out(`note: ${s.herdr} is not on PATH now; the service will look for it on its own PATH (pass --herdr /path/to/herdr)`)
  // --expose: the service's port behind tailscale serve, as `gothalo expose` does it
  const exposed = async (code: number) =>
    s.expose ? Math.max(code, await exposeCommand({ ...s, command: 'expose' }, out, { run: o.tailscaleRun, err: o.err })) : code
  if (s.noStart) {
    out('not started (--no-start). To start it:')
    for (const l of manual('start')) out(l)
    return exposed(0)
  }
  if (!control('start')) {
    fail('the unit is written; start it by hand:')
    for (const l of manual('start')) fail(l)
    return 1
  }
  out(platform === 'darwin' ? `started (logs: ${spec.logFile})` : `started (logs: journalctl --user -u ${SYSTEMD_UNIT})`)
  return exposed(0)
}
