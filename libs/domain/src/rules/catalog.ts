import type { MemoryKind } from '@engram/contracts';

/**
 * What the rule extractor knows whatever the language: known products (each with one canonical
 * spelling and the attribute it fills) and the kind and importance of known attributes. The words
 * naming attributes are in the language packs (`words.attributes`).
 */

/** A known product or technology: resolves aliases to one spelling, and implies an attribute. */
export interface CatalogEntry {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** The single-valued attribute it fills ("VS Code" → editor): a new value supersedes the old. */
  readonly category: string;
  /** Names that are also common words ("Go", "Rust", "Cursor") match only with this exact case. */
  readonly exactCase?: boolean;
}

/** Kind of a known attribute; others take the kind of the rule that found them. */
/**
 * Attributes whose value says who or where the user is. A use verb never introduces their value:
 * "我们公司用飞书" says what the company uses, not which company it is.
 */
export const identityAttributes: ReadonlySet<string> = new Set([
  'name',
  'employer',
  'role',
  'location',
  'hometown',
  'birthday',
  'email',
  'phone',
]);

export const attributeKinds: Readonly<Record<string, MemoryKind>> = {
  name: 'profile',
  employer: 'profile',
  role: 'profile',
  location: 'profile',
  hometown: 'profile',
  birthday: 'profile',
  tech_stack: 'profile',
  email: 'profile',
  phone: 'profile',
  database: 'fact',
  language: 'fact',
  framework: 'fact',
  message_queue: 'fact',
  cache: 'fact',
  cloud: 'fact',
  editor: 'preference',
  os: 'preference',
  budget: 'fact',
  deadline: 'task',
  weekly_meeting: 'fact',
  standup: 'fact',
  ci: 'fact',
  car: 'profile',
  current_location: 'profile',
  shipping_address: 'profile',
};

/** Importance of attributes that matter more than their kind suggests (money, dates). */
export const attributeImportance: Readonly<Record<string, number>> = {
  budget: 0.8,
  deadline: 0.8,
  weekly_meeting: 0.75,
  standup: 0.75,
  tech_stack: 0.85,
};

/** Earlier entries win where two name the same words; order matters only for those. */
export const catalog: readonly CatalogEntry[] = [
  { name: 'VS Code', aliases: ['VSCode', 'Visual Studio Code', 'vscode'], category: 'editor' },
  { name: 'Vim', category: 'editor' },
  { name: 'Neovim', aliases: ['nvim'], category: 'editor' },
  { name: 'Emacs', category: 'editor' },
  { name: 'IntelliJ IDEA', aliases: ['IntelliJ'], category: 'editor' },
  { name: 'IntelliJ IDEA', aliases: ['IDEA'], category: 'editor', exactCase: true },
  { name: 'WebStorm', category: 'editor' },
  { name: 'PyCharm', category: 'editor' },
  { name: 'Cursor', category: 'editor', exactCase: true },
  { name: 'Sublime Text', aliases: ['Sublime'], category: 'editor' },
  { name: 'Zed', category: 'editor', exactCase: true },
  { name: 'PostgreSQL', aliases: ['Postgres', 'pgsql'], category: 'database' },
  { name: 'PostgreSQL', aliases: ['PG'], category: 'database', exactCase: true },
  { name: 'MySQL', category: 'database' },
  { name: 'MariaDB', category: 'database' },
  { name: 'MongoDB', aliases: ['Mongo'], category: 'database' },
  { name: 'SQLite', category: 'database' },
  { name: 'Oracle', category: 'database', exactCase: true },
  { name: 'SQL Server', aliases: ['MSSQL'], category: 'database' },
  { name: 'TiDB', category: 'database' },
  { name: 'ClickHouse', category: 'database' },
  { name: 'Elasticsearch', category: 'search_engine' },
  { name: 'Elasticsearch', aliases: ['ES'], category: 'search_engine', exactCase: true },
  { name: 'Redis', category: 'cache' },
  { name: 'Memcached', category: 'cache' },
  { name: 'Kafka', aliases: ['Apache Kafka'], category: 'message_queue' },
  { name: 'RabbitMQ', category: 'message_queue' },
  { name: 'RocketMQ', category: 'message_queue' },
  { name: 'Pulsar', category: 'message_queue', exactCase: true },
  { name: 'NATS', category: 'message_queue', exactCase: true },
  { name: 'TypeScript', category: 'language' },
  { name: 'TypeScript', aliases: ['TS'], category: 'language', exactCase: true },
  { name: 'JavaScript', category: 'language' },
  { name: 'JavaScript', aliases: ['JS'], category: 'language', exactCase: true },
  { name: 'Python', category: 'language' },
  { name: 'Java', category: 'language' },
  { name: 'Go', aliases: ['Golang'], category: 'language', exactCase: true },
  { name: 'Rust', category: 'language', exactCase: true },
  { name: 'Kotlin', category: 'language' },
  { name: 'Swift', category: 'language', exactCase: true },
  { name: 'C++', aliases: ['cpp'], category: 'language' },
  { name: 'C#', aliases: ['csharp'], category: 'language' },
  { name: 'PHP', category: 'language' },
  { name: 'Ruby', category: 'language', exactCase: true },
  { name: 'Spring Boot', aliases: ['SpringBoot'], category: 'framework' },
  { name: 'Spring Cloud', category: 'framework' },
  { name: 'NestJS', aliases: ['Nest.js'], category: 'framework' },
  { name: 'Express', aliases: ['Express.js'], category: 'framework', exactCase: true },
  { name: 'Django', category: 'framework' },
  { name: 'Flask', category: 'framework', exactCase: true },
  { name: 'FastAPI', category: 'framework' },
  { name: 'Rails', aliases: ['Ruby on Rails'], category: 'framework', exactCase: true },
  { name: 'React', category: 'frontend_framework', exactCase: true },
  { name: 'Vue', aliases: ['Vue.js', 'Vue3'], category: 'frontend_framework' },
  { name: 'Angular', category: 'frontend_framework' },
  { name: 'Next.js', aliases: ['NextJS'], category: 'frontend_framework' },
  { name: 'Svelte', category: 'frontend_framework', exactCase: true },
  { name: 'AWS', aliases: ['Amazon Web Services'], category: 'cloud' },
  { name: 'GCP', aliases: ['Google Cloud'], category: 'cloud' },
  { name: 'Azure', category: 'cloud' },
  { name: '阿里云', aliases: ['Aliyun', 'Alibaba Cloud'], category: 'cloud' },
  { name: '腾讯云', aliases: ['Tencent Cloud'], category: 'cloud' },
  { name: 'Kubernetes', aliases: ['K8s'], category: 'orchestration' },
  { name: 'Docker', category: 'container_runtime' },
  { name: 'macOS', aliases: ['MacBook'], category: 'os' },
  { name: 'macOS', aliases: ['Mac'], category: 'os', exactCase: true },
  { name: 'Windows', category: 'os', exactCase: true },
  { name: 'Linux', aliases: ['Ubuntu'], category: 'os' },
];
