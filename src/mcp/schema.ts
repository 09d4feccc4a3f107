import { z } from 'zod'

/** A JSON Schema object as MCP servers send it in `inputSchema`. */
export type JsonSchemaObject = Record<string, unknown>

/**
 * The zod schema the agent validates an MCP tool's arguments with, built from the server's JSON Schema.
 * `z.fromJSONSchema` (zod 4) covers most schemas servers send; for what it rejects (`if`/`then`, unresolvable
 * `$ref`s) the fallback checks only what matters most to a model: the arguments are an object and the required
 * keys are present. The server validates again, and its error reaches the model as an error result.
 */
export function argumentsSchema(inputSchema: JsonSchemaObject): z.ZodType<Record<string, unknown>> {
  for (const target of [undefined, 'draft-7'] as const) {
    try {
      const converted = z.fromJSONSchema(inputSchema as Parameters<typeof z.fromJSONSchema>[0], target ? { defaultTarget: target } : undefined)
      return converted as z.ZodType<Record<string, unknown>>
    } catch {
      // This converter could not read the schema; the next one (or the permissive fallback) takes over.
    }
  }
  const required = Array.isArray(inputSchema.required) ? inputSchema.required.filter((key): key is string => typeof key === 'string') : []
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    for (const key of required) {
      if (!(key in value)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is required` })
    }
  })
}

/**
 * The schema shown to the model: the server's own, as sent, so the model reads what the server's author wrote.
 * Only the top-level `$schema` dialect marker is dropped (it costs prompt tokens and tells the model nothing). A
 * missing or non-object schema becomes `{type: "object", properties: {}}`, which every wire accepts.
 */
export function modelSchema(inputSchema: unknown): JsonSchemaObject {
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) return { type: 'object', properties: {} }
  const { $schema: _dialect, ...schema } = inputSchema as JsonSchemaObject
  return schema.type === 'object' ? schema : { ...schema, type: 'object' }
}
