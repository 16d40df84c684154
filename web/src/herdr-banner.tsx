// The bridge's word on herdr (GET /healthz, no auth), as a banner on the list while
// herdr cannot serve the phone, saying what to do: above all a herdr whose CLI
// refuses its running server after `herdr update` (restart the herdr server).
import { useEffect, useState } from 'preact/hooks'
import { api } from './api'
import { herdrProblem, type HerdrHealth } from './herdr-health'

/** Checked on open, when the app comes back on screen, and every 15 s while it is. */
export function HerdrBanner() {
  const [health, setHealth] = useState<HerdrHealth>()
  useEffect(() => {
    let live = true
    const check = () => {
      if (document.visibilityState !== 'visible') return
      api
        .get('/healthz')
        .then((r) => live && setHealth(r?.herdr))
        .catch(() => {})
    }
    check()
    const every = setInterval(check, 15_000)
    document.addEventListener('visibilitychange', check)
    return () => {
      live = false
      clearInterval(every)
      document.removeEventListener('visibilitychange', check)
    }
  }, [])
  const problem = herdrProblem(health)
  return problem ? (
    <p class="herdr-banner" role="alert">
      {problem}
    </p>
  ) : null
}
