import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { McpHttpEndpoint } from './mcp-http-endpoint';

/**
 * `/mcp`: engram's MCP tools over streamable HTTP (the tenant guard has already checked the key).
 * Not in the OpenAPI document: MCP describes itself.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  private readonly endpoint = new McpHttpEndpoint();

  @All()
  handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.endpoint.handle(req, res);
  }
}
