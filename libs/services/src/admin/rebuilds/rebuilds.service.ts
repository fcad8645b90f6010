import { ConflictException, Injectable } from '@nestjs/common';
import { VERSIONED_PROJECTIONS, type VersionedProjection } from '@engram/ports';
import { OnlineRebuilds } from '../../replay/online-rebuilds';
import { RebuildConflict, type RebuildStatus } from '../../replay/rebuild-status';

/** `/v1/admin/rebuilds`: start online rebuilds (one per projection of the target) and report them. */
@Injectable()
export class RebuildsService {
  constructor(private readonly rebuilds: OnlineRebuilds) {}

  /** `all` starts facts, sessions and search, each its own rebuild; 409 when one of them is already running. */
  async start(target: VersionedProjection | 'all'): Promise<{ rebuilds: RebuildStatus[] }> {
    const projections = target === 'all' ? [...VERSIONED_PROJECTIONS] : [target];
    const busy = projections.filter((p) => this.rebuilds.isRunning(p));
    if (busy.length > 0) throw new ConflictException(`a rebuild is already running for: ${busy.join(', ')}`);
    const started: RebuildStatus[] = [];
    for (const projection of projections) {
      try {
        started.push(await this.rebuilds.start(projection));
      } catch (error) {
        if (error instanceof RebuildConflict) throw new ConflictException(error.message);
        throw error;
      }
    }
    return { rebuilds: started };
  }

  /** Newest first, with progress. */
  async list(): Promise<{ rebuilds: RebuildStatus[] }> {
    return { rebuilds: await this.rebuilds.status() };
  }
}
