import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Command } from 'commander';
import { EngramClient } from '@engram/client';
import { loadConfig } from '@engram/config';
import { createEngramMcpServer } from '@engram/services/mcp/engram-mcp-server';
import { runningServer } from '@engram/services/observability/server-file';

/**
 * `engram mcp`: the MCP tools on stdin/stdout for an agent, talking to a running engram: `--url`,
 * else ENGRAM_URL, else the server running on the data directory. It never opens the data itself:
 * an agent's process comes and goes, the server keeps the pipeline running.
 */
export function registerMcpCommand(program: Command): Command {
  program
    .command('mcp')
    .description('serve the MCP tools (remember, recall, list_memories, forget_memory, forget_user) over stdio')
    .option('--url <url>', 'the engram to talk to (or ENGRAM_URL; default: the one running on ENGRAM_DATA_DIR)')
    .option('--api-key <key>', 'API key (or ENGRAM_API_KEY)')
    .action(async (options: { url?: string; apiKey?: string }) => {
      const url =
        options.url ?? process.env.ENGRAM_URL ?? runningServer(loadConfig({ LOG_LEVEL: 'silent', ...process.env }).ENGRAM_DATA_DIR)?.url;
      if (!url) throw new Error('engram mcp: no engram to talk to: pass --url, set ENGRAM_URL, or start one (npx engram start)');
      const server = createEngramMcpServer(new EngramClient({ url, apiKey: options.apiKey ?? process.env.ENGRAM_API_KEY }));
      await server.connect(new StdioServerTransport());
    });
  return program;
}
