// Vocabulary entries carry the agent versions they were seen in: a RegExp with a `seen`
// list. Matching is unchanged (it is still a RegExp); `gothalo explain` and the tests read
// `seen` to tell which wording belongs to which release, so dropping an old one is a
// decision made with the facts in view.

export type Seen = RegExp & { readonly seen: readonly string[] }

/** A wording seen in the given versions ("2.1.197 2.1.332"). */
export function seen(versions: string, re: RegExp): Seen {
  return Object.assign(re, { seen: versions.split(/\s+/).filter(Boolean) })
}

/** Tag every RegExp in a vocabulary table that has no versions yet with `versions`. */
export function seenIn<T extends object>(versions: string, table: T): T {
  const walk = (v: unknown): void => {
    if (v instanceof RegExp) {
      if (!('seen' in v)) seen(versions, v)
    } else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') Object.values(v).forEach(walk)
  }
  walk(table)
  return table
}

/** Every RegExp in a vocabulary table, with the path it sits at. */
export function entriesOf(table: object): { path: string; re: RegExp }[] {
  const out: { path: string; re: RegExp }[] = []
  const walk = (v: unknown, path: string): void => {
    if (v instanceof RegExp) out.push({ path, re: v })
    else if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`)
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k)
  }
  walk(table, '')
  return out
}
