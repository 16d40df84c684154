// `gothalo expose [--off]`: the bridge behind `tailscale serve` in one command
// (docs/bridge.md "A secure link"). It reads Tailscale's JSON (`status --json`,
// `serve status --json`), never its human output; picks an HTTPS port no other
// serve config holds; runs `tailscale serve --bg --https=<port> <bridge>`; and
// remembers the resulting URL in the data dir as the public URL. Each way it can
// fail is one line that says what to do.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The public URL `gothalo expose` left (pairing links, QR codes, push); `--public-url` wins over it. */
export const PUBLIC_URL_FILE = 'public-url'

export function readStoredPublicUrl(dataDir: string): string | undefined {
  try {
    const u = readFileSync(join(dataDir, PUBLIC_URL_FILE), 'utf8').trim()
    return /^https:\/\/[^\s/]+$/.test(u) ? u : undefined
  } catch {
    return undefined
  }
}

/** The HTTPS ports tried, in order (443 first: the URL needs no port). */
export const SERVE_PORTS = [443, 8443, 10000]

export interface Ran {
  code: number
  stdout: string
  stderr: string
  /** the executable could not be started */
  missing?: boolean
}
export type Run = (argv: string[]) => Promise<Ran>

export type Exposed = { ok: true; url: string; port: number; already: boolean } | { ok: false; error: string }

const NOT_INSTALLED = 'Tailscale is not installed: install it (https://tailscale.com/download), run `tailscale up`, then `gothalo expose` again'

function json(r: Ran, what: string): Record<string, any> | string {
  if (r.missing) return NOT_INSTALLED
  if (r.code !== 0) return `\`tailscale ${what}\` failed: ${firstLine(r.stderr) || `exit code ${r.code}`}`
  try {
    const v = JSON.parse(r.stdout)
    return v && typeof v === 'object' ? v : `\`tailscale ${what}\` printed no JSON object`
  } catch {
    return `\`tailscale ${what}\` printed something that is not JSON`
  }
}

const firstLine = (s: string) =>
  s
    .trim()
    .split('\n')
    .find((l) => l.trim())
    ?.trim()
    .slice(0, 200) ?? ''

/** The tailnet's name for this machine, when Tailscale runs and can give it certificates. */
async function tailnet(ts: string, run: Run): Promise<{ dns: string } | { error: string }> {
  const st = json(await run([ts, 'status', '--json']), 'status --json')
  if (typeof st === 'string') return { error: st }
  if (st.BackendState !== 'Running')
    return { error: `Tailscale is not logged in (state ${String(st.BackendState ?? 'unknown')}): run \`tailscale up\`, then \`gothalo expose\` again` }
  const dns = String(st.Self?.DNSName ?? '').replace(/\.$/, '')
  if (!dns)
    return { error: 'Tailscale gives this machine no MagicDNS name: turn on MagicDNS for your tailnet (admin console → DNS), then `gothalo expose` again' }
  const certs: unknown[] = Array.isArray(st.CertDomains) ? st.CertDomains : []
  if (certs.length === 0)
    return { error: 'HTTPS certificates are off for your tailnet: turn them on (admin console → DNS → HTTPS Certificates), then `gothalo expose` again' }
  return { dns }
}

/** What each HTTPS port of this machine's serve config proxies to ('' for a port held otherwise). */
function servedPorts(serve: Record<string, any>, dns: string): Map<number, string> {
  const out = new Map<number, string>()
  for (const p of Object.keys(serve.TCP ?? {})) out.set(Number(p), '')
  for (const [hostPort, web] of Object.entries<any>(serve.Web ?? {})) {
    const port = Number(hostPort.slice(hostPort.lastIndexOf(':') + 1))
    if (!hostPort.startsWith(`${dns}:`)) continue
    out.set(port, String(web?.Handlers?.['/']?.Proxy ?? ''))
  }
  return out
}

export async function expose(o: { tailscale: string; bridgePort: number; dataDir: string; run: Run }): Promise<Exposed> {
  const t = await tailnet(o.tailscale, o.run)
  if ('error' in t) return { ok: false, error: t.error }
  const target = `http://127.0.0.1:${o.bridgePort}`
  const serve = json(await o.run([o.tailscale, 'serve', 'status', '--json']), 'serve status --json')
  if (typeof serve === 'string') return { ok: false, error: serve }
  const used = servedPorts(serve, t.dns)
  let port = [...used].find(([, proxy]) => proxy === target)?.[0]
  const already = port !== undefined
  port ??= SERVE_PORTS.find((p) => !used.has(p))
  if (port === undefined)
    return {
      ok: false,
      error: `HTTPS ports ${SERVE_PORTS.join(', ')} are all held by other \`tailscale serve\` configs: free one (\`tailscale serve status\`, \`tailscale serve --https=<port> off\`), then \`gothalo expose\` again`,
    }
  if (!already) {
    const r = await o.run([o.tailscale, 'serve', '--bg', `--https=${port}`, target])
    if (r.missing) return { ok: false, error: NOT_INSTALLED }
    if (r.code !== 0) {
      const why = `${r.stderr}\n${r.stdout}`
      if (/access denied|operator|permission/i.test(why))
        return {
          ok: false,
          error: '`tailscale serve` is not permitted for this user: run `sudo tailscale set --operator=$USER` once, then `gothalo expose` again',
        }
      return { ok: false, error: `\`tailscale serve\` failed: ${firstLine(r.stderr) || firstLine(r.stdout) || `exit code ${r.code}`}` }
    }
  }
  const url = port === 443 ? `https://${t.dns}` : `https://${t.dns}:${port}`
  writeFileSync(join(o.dataDir, PUBLIC_URL_FILE), `${url}\n`, { mode: 0o600 })
  return { ok: true, url, port, already }
}

/** `gothalo expose --off`: the serve config that points at this bridge is removed, and the stored URL forgotten. */
export async function unexpose(o: {
  tailscale: string
  bridgePort: number
  dataDir: string
  run: Run
}): Promise<{ ok: true; port?: number } | { ok: false; error: string }> {
  const t = await tailnet(o.tailscale, o.run)
  rmSync(join(o.dataDir, PUBLIC_URL_FILE), { force: true })
  if ('error' in t) return { ok: false, error: t.error }
  const serve = json(await o.run([o.tailscale, 'serve', 'status', '--json']), 'serve status --json')
  if (typeof serve === 'string') return { ok: false, error: serve }
  const target = `http://127.0.0.1:${o.bridgePort}`
  const port = [...servedPorts(serve, t.dns)].find(([, proxy]) => proxy === target)?.[0]
  if (port === undefined) return { ok: true }
  const r = await o.run([o.tailscale, 'serve', `--https=${port}`, 'off'])
  if (r.code !== 0) return { ok: false, error: `\`tailscale serve --https=${port} off\` failed: ${firstLine(r.stderr) || `exit code ${r.code}`}` }
  return { ok: true, port }
}

/** Runs a command for expose: the executable missing is told apart from a failure. */
export const runCommand: Run = async (argv) => {
  try {
    const p = Bun.spawn(argv, { env: { ...process.env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    return { code, stdout, stderr }
  } catch {
    return { code: 127, stdout: '', stderr: '', missing: true }
  }
}
