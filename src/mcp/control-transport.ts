import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/**
 * Carries one JSON-RPC message to a server that lives in another process's memory (an Agent SDK program's in-process
 * MCP server, reached through `mcp_message` control requests) and resolves with the server's reply to it: the
 * response for a request, nothing for a notification or a response. Rejects when the message could not be delivered.
 */
export type Exchange = (message: JSONRPCMessage) => Promise<JSONRPCMessage | undefined>

/** JSON-RPC's code for an error inside the server's side of the exchange ("internal error"). */
const INTERNAL_ERROR = -32603

/**
 * An MCP `Transport` whose messages go through an exchange function instead of a pipe or socket, so a normal MCP
 * `Client` can talk to a server it reaches only by request and reply. Each request's reply is handed to the client as
 * the server's message; an exchange that fails answers that request with a JSON-RPC error naming the failure, so the
 * client's call rejects at once instead of waiting for its timeout.
 */
export class ExchangeTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private closed = false

  constructor(private readonly exchange: Exchange) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('The transport is closed.')
    let reply: JSONRPCMessage | undefined
    try {
      reply = await this.exchange(message)
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error)
      this.onerror?.(new Error(text))
      if (isJSONRPCRequest(message)) reply = { jsonrpc: '2.0', id: message.id, error: { code: INTERNAL_ERROR, message: text } }
    }
    // Only a request has a reply to deliver: what a notification gets back is an acknowledgement, not a message.
    if (reply && isJSONRPCRequest(message) && !this.closed) this.onmessage?.(reply)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.onclose?.()
  }
}
