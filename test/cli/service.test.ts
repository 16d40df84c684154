// `gothalo service install|uninstall`: the unit texts carry the user's
// settings (absolute paths, the agents' directory overrides, never the admin
// token), and the command writes, starts, stops and removes them.
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseSettings } from '../../src/cli/config'
import { launchdPlist, runServiceCommand, serviceSpec, systemdQuote, systemdUnit, unitPath } from '../../src/cli/service'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'gothalo-svc-'))
  dirs.push(d)
  return d
}

const USER_ENV = {
  HOME: '/home/u',
  CLAUDE_CONFIG_DIR: '/home/u/claude cfg',
  PI_CODING_AGENT_DIR: '/home/u/.pi/agent',
  GOTHALO_ADMIN_TOKEN: 'secret-admin-token',
  UNRELATED: 'x',
}
const SELF = ['/home/u/.local/bin/gothalo']
const which = (cmd: string) => (cmd === 'herdr' ? '/usr/local/bin/herdr' : null)

function settings(argv: string[], env: Record<string, string> = USER_ENV) {
  return parseSettings(['service', 'install', ...argv], env)
}

describe('the unit texts', () => {
  test("systemd: the settings as flags, absolute herdr, the agents' overrides, no admin token", () => {
    const s = settings(['--port', '8799', '--public-url', 'https://box.tail.ts.net:5338', '--log-format', 'json'])
    expect(systemdUnit(serviceSpec(s, SELF, USER_ENV, which))).toBe(`# Written by \`gothalo service install\`; remove with \`gothalo service uninstall\`.
[Unit]
Description=gothalo: supervise coding agents in herdr panes from a phone
After=network.target

[Service]
Type=simple
ExecStart=/home/u/.local/bin/gothalo serve --host 127.0.0.1 --port 8799 --herdr /usr/local/bin/herdr --herdr-timeout-ms 5000 --data-dir /home/u/.local/share/gothalo --public-url https://box.tail.ts.net:5338 --log-level info --log-format json
Environment="CLAUDE_CONFIG_DIR=/home/u/claude cfg"
Environment=PI_CODING_AGENT_DIR=/home/u/.pi/agent
Restart=on-failure
RestartSec=3
# Startup errors are one line with what to do: \`journalctl --user -u gothalo.service\`.

[Install]
WantedBy=default.target
`)
  })

  test("both carry the installing shell's PATH (agents are looked for on it)", () => {
    const env = { ...USER_ENV, PATH: '/home/u/.npm-global/bin:/home/u/my tools:/usr/bin' }
    const spec = serviceSpec(settings([], env), SELF, env, which)
    expect(spec.env.PATH).toBe(env.PATH)
    expect(systemdUnit(spec)).toContain('\nEnvironment="PATH=/home/u/.npm-global/bin:/home/u/my tools:/usr/bin"\n')
    expect(launchdPlist(spec)).toContain('    <key>PATH</key>\n    <string>/home/u/.npm-global/bin:/home/u/my tools:/usr/bin</string>\n')
  })

  test('systemd quoting: spaces, quotes, % and $ survive', () => {
    expect(systemdQuote('/a b/"c"')).toBe('"/a b/\\"c\\""')
    expect(systemdQuote('100%')).toBe('100%%')
    expect(systemdQuote('$HOME')).toBe('"$$HOME"')
    expect(systemdQuote('/plain/path-1.0')).toBe('/plain/path-1.0')
  })

  test('launchd: the same settings as ProgramArguments, XML-escaped, logs to ~/Library/Logs', () => {
    const s = settings(['--data-dir', '/Users/u/g&o', '--herdr', '/opt/herdr/bin/herdr'], { HOME: '/Users/u', XDG_STATE_HOME: '/Users/u/state' })
    expect(
      launchdPlist(serviceSpec(s, ['/usr/local/bin/gothalo'], { HOME: '/Users/u', XDG_STATE_HOME: '/Users/u/state' }, which)),
    ).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`gothalo service install\`; remove with \`gothalo service uninstall\`. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>dev.gothalo.bridge</string>
  <key>ProgramArguments</key>
  <array>
    <string>/usr/local/bin/gothalo</string>
    <string>serve</string>
    <string>--host</string>
    <string>127.0.0.1</string>
    <string>--port</string>
    <string>8787</string>
    <string>--herdr</string>
    <string>/opt/herdr/bin/herdr</string>
    <string>--herdr-timeout-ms</string>
    <string>5000</string>
    <string>--data-dir</string>
    <string>/Users/u/g&amp;o</string>
    <string>--log-level</string>
    <string>info</string>
    <string>--log-format</string>
    <string>text</string>
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>XDG_STATE_HOME</key>
    <string>/Users/u/state</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>5</integer>
  <key>StandardOutPath</key>
  <string>/Users/u/Library/Logs/gothalo.log</string>
  <key>StandardErrorPath</key>
  <string>/Users/u/Library/Logs/gothalo.log</string>
</dict>
</plist>
`)
  })

  test('a relative data dir and herdr path become absolute; a source checkout runs as bun + main.ts', () => {
    const s = settings(['--data-dir', 'rel/data', '--herdr', './bin/herdr'])
    const spec = serviceSpec(s, ['/usr/bin/bun', '/src/gothalo/src/main.ts'], USER_ENV, which)
    expect(spec.argv.slice(0, 3)).toEqual(['/usr/bin/bun', '/src/gothalo/src/main.ts', 'serve'])
    expect(spec.argv[spec.argv.indexOf('--data-dir') + 1]).toBe(join(process.cwd(), 'rel/data'))
    expect(spec.argv[spec.argv.indexOf('--herdr') + 1]).toBe(join(process.cwd(), 'bin/herdr'))
  })
})

describe('gothalo service install / uninstall', () => {
  test('linux: writes the unit where systemd looks, runs daemon-reload and enable --now; uninstall stops and removes it', async () => {
    const cfg = temp()
    const env = { ...USER_ENV, XDG_CONFIG_HOME: cfg }
    const ran: string[][] = []
    const out: string[] = []
    const o = { self: SELF, platform: 'linux', env, run: (a: string[]) => (ran.push(a), { code: 0, stderr: '' }) }
    expect(await runServiceCommand(settings([], env), (l) => out.push(l), o)).toBe(0)
    const path = join(cfg, 'systemd', 'user', 'gothalo.service')
    expect(unitPath('linux', env)).toBe(path)
    const unit = readFileSync(path, 'utf8')
    expect(unit).toContain('ExecStart=/home/u/.local/bin/gothalo serve --host 127.0.0.1 --port 8787')
    expect(unit).not.toContain('secret-admin-token')
    expect(statSync(path).mode & 0o777).toBe(0o644)
    expect(ran).toEqual([
      ['systemctl', '--user', 'daemon-reload'],
      ['systemctl', '--user', 'enable', '--now', 'gothalo.service'],
    ])
    expect(out).toContain(`wrote ${path}`)
    expect(out.join('\n')).toContain('the admin token is not written into the unit')
    expect(out.at(-1)).toBe('started (logs: journalctl --user -u gothalo.service)')

    ran.length = 0
    expect(await runServiceCommand(parseSettings(['service', 'uninstall'], env), (l) => out.push(l), o)).toBe(0)
    expect(ran).toEqual([
      ['systemctl', '--user', 'disable', '--now', 'gothalo.service'],
      ['systemctl', '--user', 'daemon-reload'],
    ])
    expect(existsSync(path)).toBe(false)
    expect(out.at(-1)).toBe(`removed ${path}`)
    expect(await runServiceCommand(parseSettings(['service', 'uninstall'], env), (l) => out.push(l), o)).toBe(0)
    expect(out.at(-1)).toBe(`no service installed (${path} does not exist)`)
  })

  test('macOS: the plist in ~/Library/LaunchAgents, launchctl bootstrap/bootout', async () => {
    const home = temp()
    const env = { HOME: home }
    const ran: string[][] = []
    const o = { self: ['/usr/local/bin/gothalo'], platform: 'darwin', env, run: (a: string[]) => (ran.push(a), { code: 0, stderr: '' }) }
    expect(await runServiceCommand(settings([], env), () => {}, o)).toBe(0)
    const path = join(home, 'Library', 'LaunchAgents', 'dev.gothalo.bridge.plist')
    expect(readFileSync(path, 'utf8')).toContain('<string>dev.gothalo.bridge</string>')
    const uid = process.getuid!()
    expect(ran).toEqual([['launchctl', 'bootstrap', `gui/${uid}`, path]])
    ran.length = 0
    expect(await runServiceCommand(parseSettings(['service', 'uninstall'], env), () => {}, o)).toBe(0)
    expect(ran).toEqual([['launchctl', 'bootout', `gui/${uid}/dev.gothalo.bridge`]])
    expect(existsSync(path)).toBe(false)
  })

  test('--no-start writes the unit and prints the commands; a failing systemctl exits 1 and says what to run', async () => {
    const cfg = temp()
    const env = { HOME: '/home/u', XDG_CONFIG_HOME: cfg }
    const out: string[] = []
    const ran: string[][] = []
    const o = { self: SELF, platform: 'linux', env, run: (a: string[]) => (ran.push(a), { code: 1, stderr: 'Failed to connect to bus' }) }
    expect(await runServiceCommand(settings(['--no-start'], env), (l) => out.push(l), o)).toBe(0)
    expect(ran).toEqual([])
    expect(out.slice(-3)).toEqual([
      'not started (--no-start). To start it:',
      '  systemctl --user daemon-reload',
      '  systemctl --user enable --now gothalo.service',
    ])
    out.length = 0
    expect(await runServiceCommand(settings([], env), (l) => out.push(l), o)).toBe(1)
    expect(out).toContain('`systemctl --user daemon-reload` failed (1: Failed to connect to bus)')
    expect(out).toContain('the unit is written; start it by hand:')
  })

  test('an unsupported platform is refused', async () => {
    const out: string[] = []
    expect(await runServiceCommand(settings([]), (l) => out.push(l), { self: SELF, platform: 'win32', env: USER_ENV })).toBe(1)
    expect(out).toEqual(['gothalo service: win32 is not supported (systemd on Linux, launchd on macOS)'])
  })
})

test("service install --expose: the unit, then the service's port behind tailscale serve", async () => {
  const cfg = temp()
  const data = temp()
  const env = { ...USER_ENV, XDG_CONFIG_HOME: cfg }
  const ts: string[][] = []
  const tailscaleRun = async (argv: string[]) => {
    ts.push(argv.slice(1))
    if (argv[1] === 'status')
      return {
        code: 0,
        stdout: JSON.stringify({ BackendState: 'Running', Self: { DNSName: 'box.tail1234.ts.net.' }, CertDomains: ['box.tail1234.ts.net'] }),
        stderr: '',
      }
    if (argv[1] === 'serve' && argv[2] === 'status') return { code: 0, stdout: '{}', stderr: '' }
    return { code: 0, stdout: 'Serve started and running in the background.', stderr: '' }
  }
  const out: string[] = []
  const o = { self: SELF, platform: 'linux', env, run: () => ({ code: 0, stderr: '' }), tailscaleRun }
  expect(await runServiceCommand(settings(['--port', '8799', '--data-dir', data, '--expose', '--no-start'], env), (l) => out.push(l), o)).toBe(0)
  expect(existsSync(join(cfg, 'systemd', 'user', 'gothalo.service'))).toBe(true)
  expect(ts.at(-1)).toEqual(['serve', '--bg', '--https=443', 'http://127.0.0.1:8799'])
  expect(out).toContain('https://box.tail1234.ts.net now reaches the bridge at http://127.0.0.1:8799 (tailscale serve, HTTPS port 443)')
  expect(out.at(-1)).toBe('undo: gothalo expose --off')
})

test('service install: its failures go to the error channel (stderr), the rest to stdout; --expose failing too', async () => {
  const cfg = temp()
  const data = temp()
  const env = { ...USER_ENV, XDG_CONFIG_HOME: cfg }
  // tailscale logged out: `gothalo expose`'s one line says what to do, as an error
  const tailscaleRun = async (argv: string[]) =>
    argv[1] === 'status' ? { code: 0, stdout: JSON.stringify({ BackendState: 'NeedsLogin' }), stderr: '' } : { code: 0, stdout: '', stderr: '' }
  const out: string[] = []
  const err: string[] = []
  const o = { self: SELF, platform: 'linux', env, run: () => ({ code: 1, stderr: 'Failed to connect to bus' }), tailscaleRun, err: (l: string) => err.push(l) }
  expect(await runServiceCommand(settings(['--port', '8799', '--data-dir', data, '--expose'], env), (l) => out.push(l), o)).toBe(1)
  expect(out[0]).toBe(`wrote ${join(cfg, 'systemd', 'user', 'gothalo.service')}`)
  expect(err[0]).toMatch(/^`systemctl .*` failed \(1: Failed to connect to bus\)$/)
  expect(err).toContain('the unit is written; start it by hand:')
  expect(out.some((l) => /failed|by hand/.test(l))).toBe(false)
  // the service started: its --expose failure is an error line too, and the exit code says so
  const out2: string[] = []
  const err2: string[] = []
  const o2 = { ...o, run: () => ({ code: 0, stderr: '' }), err: (l: string) => err2.push(l) }
  expect(await runServiceCommand(settings(['--port', '8799', '--data-dir', data, '--expose'], env), (l) => out2.push(l), o2)).toBe(1)
  expect(err2.length).toBeGreaterThan(0)
  expect(err2.join('\n')).toMatch(/log/i)
  expect(out2.join('\n')).not.toMatch(/tailscale up|logged out|log in/i)
})
