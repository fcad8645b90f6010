import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { startEngram, type EngramHarness } from '../support/engram-harness';

/*
 * engram's MCP tools driven by the MCP SDK's own client, over both transports: `engram mcp`
 * (stdio, a real child process talking to this real engram by --url) and `/mcp` (streamable HTTP).
 */
const ROOT = path.resolve(__dirname, '../..');

type ToolResult = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: {
    accepted?: number;
    context?: string;
    memories: { memoryId: string; content: string }[];
    memory?: Record<string, unknown>;
    forgotten?: boolean;
  };
};

describe('MCP: engram mcp (stdio) and /mcp (streamable HTTP)', () => {
  let engram: EngramHarness;
  let url: string;

  beforeAll(async () => {
    engram = await startEngram({ env: { ENGRAM_API_KEYS: 'key-a=acme,key-b=beta' } });
    await engram.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(engram.app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await engram?.destroy();
  });

  const transports: Record<string, (apiKey: string) => Transport> = {
    stdio: (apiKey) =>
      new StdioClientTransport({
        command: process.execPath,
        args: ['-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, 'apps/engram/main.ts'), 'mcp', '--url', url],
        env: { ...(process.env as Record<string, string>), ENGRAM_API_KEY: apiKey, LOG_LEVEL: 'silent' },
        stderr: 'pipe',
      }),
    'streamable HTTP': (apiKey) =>
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }),
  };

  describe.each(Object.keys(transports))('over %s', (name) => {
    const clients: Client[] = [];
    const connect = async (apiKey: string) => {
      const client = new Client({ name: 'engram-mcp-spec', version: '1.0.0' });
      await client.connect(transports[name](apiKey));
      clients.push(client);
      return client;
    };
    const call = async (client: Client, tool: string, args: Record<string, unknown>) =>
      (await client.callTool({ name: tool, arguments: args })) as ToolResult;
    afterAll(async () => {
      for (const client of clients) await client.close();
    });

    it('lists the tools', async () => {
      const client = await connect('key-a');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['forget_memory', 'forget_user', 'list_memories', 'recall', 'remember']);
      expect(tools.find((t) => t.name === 'recall')?.inputSchema.required).toEqual(['userId', 'query']);
    }, 60_000);

    it('remembers, recalls (memories and the context block), lists and forgets, scoped by the API key and the user', async () => {
      const user = `zhou-${name.replace(/\W/g, '')}`;
      const acme = await connect('key-a');
      const remembered = await call(acme, 'remember', {
        userId: user,
        sessionId: 's1',
        turns: [
          { role: 'user', text: '我们的数据库用 PostgreSQL' },
          { role: 'user', text: 'I prefer window seats' },
        ],
      });
      expect(remembered.isError).toBeFalsy();
      expect(remembered.structuredContent?.accepted).toBe(2);

      const recalled = await call(acme, 'recall', { userId: user, query: '数据库用什么' });
      expect(recalled.isError).toBeFalsy();
      expect(recalled.structuredContent?.context).toContain('PostgreSQL');
      expect(recalled.structuredContent?.memories.map((m: { content: string }) => m.content).join('\n')).toContain('PostgreSQL');
      expect(JSON.parse(recalled.content[0].text).context).toBe(recalled.structuredContent?.context);

      const listed = (await call(acme, 'list_memories', { userId: user })).structuredContent?.memories as {
        memoryId: string;
        content: string;
      }[];
      const seat = listed.find((m) => m.content.includes('window'))!;
      expect(seat).toBeDefined();

      // Another tenant, same user id: nothing.
      const beta = await connect('key-b');
      expect((await call(beta, 'list_memories', { userId: user })).structuredContent?.memories).toEqual([]);
      expect((await call(beta, 'recall', { userId: user, query: '数据库用什么' })).structuredContent?.context).not.toContain('PostgreSQL');

      const retracted = await call(acme, 'forget_memory', { userId: user, memoryId: seat.memoryId, reason: 'changed my mind' });
      expect(retracted.structuredContent?.memory).toMatchObject({ status: 'retracted', statusReason: 'changed my mind' });
      expect(
        ((await call(acme, 'list_memories', { userId: user })).structuredContent?.memories as { memoryId: string }[]).map(
          (m) => m.memoryId,
        ),
      ).not.toContain(seat.memoryId);

      const missing = await call(acme, 'forget_memory', { userId: user, memoryId: 'no-such-memory', reason: 'x' });
      expect(missing.isError).toBe(true);
      expect(missing.content[0].text).toContain('404');

      expect((await call(acme, 'forget_user', { userId: user })).structuredContent?.forgotten).toBe(true);
      expect((await call(acme, 'list_memories', { userId: user })).structuredContent?.memories).toEqual([]);
    }, 60_000);

    it('recall narrows by every declared filter field (RECALL_FILTER_FIELDS): kinds, sessions, from/to', async () => {
      const user = `lin-${name.replace(/\W/g, '')}`;
      const acme = await connect('key-a');
      await call(acme, 'remember', { userId: user, sessionId: 's1', turns: [{ role: 'user', text: 'I prefer window seats on flights' }] });
      await call(acme, 'remember', { userId: user, sessionId: 's2', turns: [{ role: 'user', text: 'I prefer aisle seats on trains' }] });
      const contents = async (filters: Record<string, unknown>) => {
        const recalled = await call(acme, 'recall', { userId: user, query: 'which seats do I prefer', ...filters });
        expect(recalled.isError).toBeFalsy();
        return recalled.structuredContent!.memories.map((m) => m.content).join('\n');
      };
      expect(await contents({})).toMatch(/window[\s\S]*aisle|aisle[\s\S]*window/);
      expect(await contents({ sessions: ['s2'] })).not.toContain('window');
      expect(await contents({ sessions: ['s2'] })).toContain('aisle');
      expect(await contents({ from: '2999-01-01T00:00:00Z' })).toBe('');
      expect(await contents({ to: '2999-01-01T00:00:00Z', kinds: ['preference'] })).toContain('window');
      // The server validates them as for any recall: a bad instant is its 400, naming the field.
      const refused = await call(acme, 'recall', { userId: user, query: 'seats', from: 'yesterday' });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toContain('from');
    }, 60_000);

    it('refuses a wrong API key', async () => {
      if (name === 'stdio') {
        const client = await connect('no-such-key');
        const refused = await call(client, 'recall', { userId: 'u', query: 'q' });
        expect(refused.isError).toBe(true);
        expect(refused.content[0].text).toContain('401');
      } else {
        await expect(connect('no-such-key')).rejects.toThrow(/401/);
      }
    }, 60_000);
  });
});
