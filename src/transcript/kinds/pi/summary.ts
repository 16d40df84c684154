// Nothing of pi's own lives here any more: the helpers moved to tool-summary.ts.
// Kept only because opencode's service.ts and store.ts (not this change's files)
// still import isObj/str from here; delete once they import ../../tool-summary.
export { isObj, str, type Obj } from '../../tool-summary'
