// What the working-tree routes never serve, whatever the scope or the directory
// (docs/bridge.md "The working tree is not the whole disk"): the bridge's own
// data and config directories, and every credential store a developer's home
// holds. Refused as 404, like a path that does not exist. The verdict is pure;
// the places are found once, at the start.
import { realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, sep } from 'node:path'
import type { AgentHomes } from '../transcript/source'

/** A credential store named by its trailing path components: a directory (all below it) or one file. */
const CREDENTIAL_STORES: string[][] = [
  ['.ssh'],
  ['.gnupg'],
  ['.aws'],
  ['.azure'],
  ['.kube'],
  ['.docker', 'config.json'],
  ['.netrc'],
  ['.git-credentials'],
  ['.npmrc'],
  ['.pypirc'],
  ['.config', 'gh'],
  ['.config', 'gcloud'],
  ['.claude', '.credentials.json'],
  ['.codex', 'auth.json'],
  ['opencode', 'auth.json'],
  ['.pi', 'agent', 'auth.json'],
]

export interface PrivatePlaces {
  /** absolute real paths nothing at or below which is served: the bridge's own directories, the agents' credential files */
  places: string[]
}

/** A path as the kernel sees it: its nearest existing ancestor's real path, and the rest as given (a place made later is still found). */
function real(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    const up = dirname(p)
    return up === p ? p : join(real(up), basename(p))
  }
}

/**
 * The bridge's own data and config directories (those given, and the defaults under the
 * home, whichever the bridge runs with), and each agent's credentials where its
 * environment put them.
 */
export function privatePlaces(homes: AgentHomes, bridgeDirs: string[] = []): PrivatePlaces {
  const { home, xdgDataHome } = homes
  const given = [
    ...bridgeDirs,
    join(xdgDataHome, 'gothalo'),
    join(home, '.local', 'share', 'gothalo'),
    join(home, '.config', 'gothalo'),
    join(homes.claudeDir, '.credentials.json'),
    join(homes.piDir, 'auth.json'),
    join(homes.codexDir ?? join(home, '.codex'), 'auth.json'),
    join(xdgDataHome, 'opencode', 'auth.json'),
  ].filter((p) => isAbsolute(p))
  return { places: [...new Set(given.flatMap((p) => [p, real(p)]))] }
}

const below = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep)

/**
 * `path` (absolute, real: no symlink in it) is private: inside one of the places, or a
 * credential store or below one, wherever it sits (a project's own `.ssh` too). A
 * directory that holds a private place is not private itself (its listing leaves that out).
 */
export function isPrivate(path: string, places: PrivatePlaces): boolean {
  if (places.places.some((p) => below(path, p))) return true
  // case folded: on a case-insensitive disk (macOS) `.SSH` is `.ssh`
  const parts = path.toLowerCase().split(sep)
  for (const store of CREDENTIAL_STORES) for (let i = 0; i + store.length <= parts.length; i++) if (store.every((c, k) => parts[i + k] === c)) return true
  return false
}

/** `rel` split into its components, or undefined when it cannot name something below a base: `..`, absolute, NUL, `.git`, too long. */
export function componentsOf(rel: string): string[] | undefined {
  if (rel.includes('\u0000') || rel.length > 4096 || rel.startsWith('/')) return undefined
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.some((p) => p === '..' || p.toLowerCase() === '.git')) return undefined
  return parts
}

/** `parts` below `base`, as one absolute path. */
export const pathBelow = (base: string, parts: string[]): string => (parts.length ? join(base, ...parts) : base)
