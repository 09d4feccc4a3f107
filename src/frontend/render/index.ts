// The rendering facts every surface needs (docs/tool-display.md): plain data and strings, no terminal or page code.
export { describeCall, describeResult, TITLE_MAX, type ShownCall, type ShownCallResult, type ShownTool, type ToolLookup } from './tool-call.js'
export { permissionQuestion, type PermissionQuestion, type QuestionChange } from './permission.js'
export { agentToolLookup, liveToolLookup, toolLookup } from './lookup.js'
export { plainLine, plainText, replaceControls, shorten } from './plain.js'
export { appendTail, formatDuration, TAIL_LINES } from './tail.js'
export { counted, grouped } from '../../text/count.js'
