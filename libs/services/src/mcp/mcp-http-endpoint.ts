import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { EngramClient } from '@engram/client';
import { createEngramMcpServer } from './engram-mcp-server';

/**
 * One MCP request over streamable HTTP, stateless (a server and transport per request). The tools
 * call this same server's API through the address the request came in on, with the caller's own
 * `Authorization`, so they are scoped exactly as the API is.
 */
export class McpHttpEndpoint {
  async handle(req: Request, res: Response): Promise<void> {
    const host = req.socket.localAddress?.includes(':') ? `[${req.socket.localAddress}]` : req.socket.localAddress;
    const apiKey = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const server = createEngramMcpServer(new EngramClient({ url: `http://${host}:${req.socket.localPort}`, apiKey }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }
}
