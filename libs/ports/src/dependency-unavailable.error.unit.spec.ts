import { DependencyUnavailableError, unavailableDependency } from './dependency-unavailable.error';

describe('unavailableDependency: is a failure an outage of a dependency, or the fault of the call?', () => {
  const outage = new DependencyUnavailableError('embedder', 'POST …/v1/embeddings: ECONNREFUSED (gave up after 4 attempts)');

  it('given the error itself, then the outage, naming the dependency', () => {
    expect(unavailableDependency(outage)).toBe(outage);
    expect(unavailableDependency(outage)?.dependency).toBe('embedder');
  });

  it('given an error that wraps it (as cause, at any depth), then the outage', () => {
    const wrapped = new Error('indexing failed', { cause: new Error('embedding failed', { cause: outage }) });
    expect(unavailableDependency(wrapped)).toBe(outage);
  });

  it.each<[string, unknown]>([
    ['a plain error (a bug, a refused input)', new Error('POST …/v1/embeddings → 400: input must not be empty')],
    ['an error whose cause is one too', new Error('x', { cause: new TypeError('y') })],
    ['a string', 'ECONNREFUSED'],
    ['undefined', undefined],
    ['null', null],
    ['an object looking like one, but not one', { name: 'DependencyUnavailableError', dependency: 'embedder' }],
  ])('given %s, then none: the event is at fault', (_name, error) => {
    expect(unavailableDependency(error)).toBeUndefined();
  });

  it('given causes that loop, then it ends', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(unavailableDependency(a)).toBeUndefined();
  });

  it('keeps what the dependency asked for: its Retry-After, and the failure it stands for', () => {
    const cause = new Error('→ 429: slow down');
    const limited = new DependencyUnavailableError('llm', 'gave up', { cause, retryAfterMs: 7000 });
    expect(limited).toMatchObject({ name: 'DependencyUnavailableError', dependency: 'llm', retryAfterMs: 7000, cause });
    expect(limited).toBeInstanceOf(Error);
  });
});
