import type { ProcedureCues } from '../../language-pack';

/** English cues of the procedure rules (`rules/procedures.rules.ts`): standing rules for how the assistant should act. */
export const enProcedures: ProcedureCues = {
  standing: ['always', 'never', 'from now on', 'going forward', 'in the future', 'in future', 'every time', 'no more'],
  asks: ["don't", 'do not', 'please', 'stop', 'avoid', 'make sure'],
  actions: ['use', 'using', 'switch to', 'give', 'write', 'add', 'send', 'include', 'keep', 'put', 'show', 'start', 'list', 'format'],
  responses: ['answer', 'answers', 'reply', 'replies', 'respond', 'response', 'responses', 'explain', 'explanations', 'talk to me'],
  topics: {
    response_language: ['English', 'Chinese', 'Mandarin', 'Japanese', 'Spanish', 'French', 'German'],
    // Not bare "code": it is in "VS Code".
    code_examples: [
      'code examples',
      'code example',
      'code samples',
      'code sample',
      'code snippets',
      'snippets',
      'sample code',
      'example code',
      'code blocks',
    ],
    emoji: ['emoji', 'emojis', 'emoticons', 'stickers'],
    quote: ['quotes', 'quote', 'quoting', 'pricing'],
    length: ['short', 'shorter', 'concise', 'brief', 'verbose', 'long-winded', 'detailed', 'in detail', 'longer'],
    format: ['markdown', 'bullet points', 'bullets', 'tables', 'format', 'formatting'],
    tone: ['tone', 'formal', 'casual'],
  },
  topicInstructions: ['in', 'should', 'must', 'always', 'only', 'first', 'please'],
  oneOff: ['this question', 'this time', 'this one', 'just this once', 'right now', 'for now'],
  addressing: ['want you to', 'like you to', 'need you to', 'you should', 'you always', 'you never'],
  anaphora: ['that', 'this', 'these', 'those', 'the above', 'it in mind'],
  selfOpeners: [String.raw`i\b`, String.raw`we\b`, String.raw`my\b`, String.raw`our\b`],
};
