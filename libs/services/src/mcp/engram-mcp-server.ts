import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { EngramClient } from '@engram/client';
import {
  MEMORY_KINDS,
  RECALL_FILTER_FIELD_NAMES,
  recallFilterDeclaration,
  type RecallFilterField,
  type RecallFilterShapes,
  type RecallFilterValues,
} from '@engram/contracts';

/** A filter field's argument by its declared shape; the server validates it as it validates any recall. */
const FILTER_SHAPES: { readonly [S in keyof RecallFilterShapes]: () => z.ZodType<RecallFilterShapes[S]> } = {
  kinds: () => z.array(z.enum(MEMORY_KINDS)),
  ids: () => z.array(z.string().min(1)),
  instant: () => z.string(),
};

/** The recall filter fields (`RECALL_FILTER_FIELDS` in libs/contracts) as the recall tool's arguments, each optional. */
function recallFilterArguments() {
  return Object.fromEntries(
    RECALL_FILTER_FIELD_NAMES.map((field) => {
      const { shape, summary } = recallFilterDeclaration(field);
      return [field, FILTER_SHAPES[shape]().optional().describe(summary)];
    }),
  ) as { [F in RecallFilterField]: z.ZodOptional<z.ZodType<NonNullable<RecallFilterValues[F]>>> };
}

/** A tool's answer: the JSON as text (what every MCP client shows) and as structured content. */
const answer = (value: object) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
});

/**
 * engram's MCP tools, each one call of the SDK: whose data they reach is the client's API key
 * (its tenant) and the `userId` argument. The same server backs `engram mcp` (stdio) and `/mcp`.
 */
export function createEngramMcpServer(engram: EngramClient): McpServer {
  const server = new McpServer({ name: 'engram', version: '0.1.0' });
  const userId = z.string().min(1).describe('the end user whose memory this is');

  server.registerTool(
    'remember',
    {
      description: 'Record conversation turns for a user, to be remembered (idempotent per turnId).',
      inputSchema: {
        userId,
        sessionId: z.string().min(1),
        turns: z
          .array(
            z.object({
              role: z.enum(['user', 'assistant', 'system', 'tool']),
              text: z.string().min(1),
              turnId: z.string().min(1).optional(),
              occurredAt: z.string().optional().describe('ISO instant (default: now)'),
            }),
          )
          .min(1),
      },
    },
    async (args) => answer(await engram.remember(args.userId, args.sessionId, args.turns)),
  );

  server.registerTool(
    'recall',
    {
      description: 'The memories that matter for a query, and a context block ready to put in a prompt.',
      inputSchema: {
        userId,
        query: z.string().min(1),
        sessionId: z.string().min(1).optional().describe('adds the session summary and recent turns'),
        k: z.number().int().min(1).max(50).optional(),
        ...recallFilterArguments(),
      },
    },
    async ({ userId, query, ...options }) => {
      const recalled = await engram.recall(userId, query, options);
      return answer({ facts: recalled.facts, procedures: recalled.procedures, memories: recalled.memories, context: recalled.context });
    },
  );

  server.registerTool(
    'list_memories',
    {
      description: "A user's memories with their version history (status 'all' includes retracted and archived ones).",
      inputSchema: { userId, status: z.enum(['active', 'all']).optional() },
    },
    async (args) => answer({ memories: await engram.memories(args.userId, { status: args.status }) }),
  );

  server.registerTool(
    'forget_memory',
    {
      description: 'Retract one memory: kept with the reason, no longer recalled.',
      inputSchema: { userId, memoryId: z.string().min(1), reason: z.string().min(1) },
    },
    async (args) => answer(await engram.retract(args.userId, args.memoryId, args.reason)),
  );

  server.registerTool(
    'forget_user',
    { description: 'Forget a user everywhere (every memory, turn and projection).', inputSchema: { userId } },
    async (args) => answer(await engram.forget(args.userId)),
  );
  return server;
}
