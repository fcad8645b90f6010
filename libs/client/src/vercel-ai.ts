/** `@engram/client/vercel-ai`: memory for the Vercel AI SDK. Its own entry point, so only applications that use it need `ai`. */
export { engramMiddleware } from './vercel-ai-middleware';
export type { EngramMiddlewareOptions } from './vercel-ai-middleware';
