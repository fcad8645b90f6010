// encrypt-log's checks before it switches: each copy holds as many messages, with the same digest and
// no plaintext; then every consumer group's position moves over to the copies.
import { createHash, type Hash } from 'node:crypto';
import { versionedTopic } from '@engram/contracts';
import type { EventLog, LogMigration } from '@engram/ports';
import { holdsNoPlaintext, identityOf } from './encrypt-log-messages';
import { type ReadTopic, type Scanned, sumOf } from './encrypt-log-scan';
import { EncryptLogConflict, type EncryptLogOptions } from './encrypt-log.types';

export async function verifyCopies(
  stored: EventLog,
  read: ReadTopic,
  scanned: readonly Scanned[],
  migration: LogMigration,
  group: string,
  options: EncryptLogOptions,
): Promise<void> {
  const total = scanned.reduce((sum, s) => sum + sumOf(s.count), 0);
  let done = 0;
  options.onProgress?.({ phase: 'verifying', done, total });
  for (const source of scanned) {
    const target = versionedTopic(source.topic, migration.to);
    const end = await stored.endPosition(target);
    const hashes = new Map<number, Hash>();
    const count = new Map<number, number>();
    let plaintext = 0;
    await read(target, group, { to: 'beginning' }, end, async (messages) => {
      for (const m of messages) {
        if (m.offset !== (count.get(m.partition) ?? 0))
          throw new EncryptLogConflict(
            `${target} partition ${m.partition}: offset ${m.offset} where ${count.get(m.partition) ?? 0} was expected`,
          );
        count.set(m.partition, m.offset + 1);
        let hash = hashes.get(m.partition);
        if (!hash) hashes.set(m.partition, (hash = createHash('sha256')));
        hash.update(identityOf(m.key, m.raw, m.value)).update('\u0001');
        if (!holdsNoPlaintext(m.value)) plaintext++;
      }
      done += messages.length;
      options.onProgress?.({ phase: 'verifying', done, total });
    });
    const differs = [...source.count.keys()].filter(
      (p) => (count.get(p) ?? 0) !== source.count.get(p) || (hashes.get(p)?.digest('hex') ?? 'empty') !== source.digest.get(p),
    );
    if (differs.length > 0 || plaintext > 0) {
      throw new EncryptLogConflict(
        `the copy ${target} does not match ${source.stored}${differs.length > 0 ? ` (partitions ${differs.join(', ')})` : ''}${plaintext > 0 ? ` (${plaintext} plaintext payloads)` : ''}: nothing was switched; abort (engram encrypt-log --abort) and run again`,
      );
    }
  }
}

/** Every consumer group's position on each old topic, set on its copy (shifted by what retention deleted). */
export async function carryPositions(
  stored: EventLog,
  scanned: readonly Scanned[],
  migration: LogMigration,
  own: string,
  options: EncryptLogOptions,
): Promise<void> {
  const moves: { source: Scanned; group: string }[] = [];
  for (const source of scanned) {
    for (const { group } of await stored.listGroups(source.stored)) if (group !== own) moves.push({ source, group });
  }
  options.onProgress?.({ phase: 'switching', done: 0, total: moves.length });
  for (const [i, { source, group }] of moves.entries()) {
    const committed = await stored.committedPosition(source.stored, group);
    const position: Record<number, number> = {};
    for (const [p, low] of source.low) position[p] = Math.min(source.count.get(p)!, Math.max(0, (committed[p] ?? low) - low));
    await stored.resetGroup(versionedTopic(source.topic, migration.to), group, { to: 'position', position });
    options.onProgress?.({ phase: 'switching', done: i + 1, total: moves.length });
  }
}
