export * from './extraction-prompt';
export * from './openai-chat-extractor';
export * from './create-extraction-strategy';
export * from './openai-chat-summarizer';
