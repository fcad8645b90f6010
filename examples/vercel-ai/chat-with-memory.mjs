import { openai } from '@ai-sdk/openai';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { EngramClient } from '@engram/client';
import { engramMiddleware } from '@engram/client/vercel-ai';

const engram = new EngramClient({ url: process.env.ENGRAM_URL, apiKey: process.env.ENGRAM_API_KEY });
await engram.remember('laozhou', 's1', [
  { role: 'user', text: '我们的数据库用 PostgreSQL' },
  { role: 'user', text: 'I prefer window seats' },
]);

const model = wrapLanguageModel({
  model: openai.chat('gpt-4o-mini'),
  middleware: engramMiddleware({ engram, userId: 'laozhou', sessionId: 's1' }),
});

const { text } = await generateText({ model, prompt: '我们的数据库是什么？' });
console.log(text); // recalled first, both turns recorded after

const { textStream } = streamText({ model, prompt: 'Which seat do I like?' });
for await (const delta of textStream) process.stdout.write(delta);
console.log(); // recorded once the stream has ended
