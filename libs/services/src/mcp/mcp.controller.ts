import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { EngramClient } from '@engram/client';
import { createEngramMcpServer } from './engram-mcp-server';

/**
 * `/mcp`: engram's MCP tools over streamable HTTP, stateless (a server per request). The tools
 * call this same server's API through the address the request came in on, with the caller's own
 * `Authorization`, so they are scoped exactly as the API is (the tenant guard has already checked
 * the key). Not in the OpenAPI document: MCP describes itself.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  @All()
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
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
