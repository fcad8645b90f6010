// The resolver's state (a user's memories by id) and its options: what every resolution file shares.
import type { MemoryRecord } from '@engram/contracts';

/**
 * The resolver's state: a user's memories by id (see resolution.decider.ts).
 *
 * State should hold the user's active memories plus any memory whose merge key the command
 * touches: near-duplicate detection and "that's no longer true" look beyond the merge key.
 */
export type ResolverState = ReadonlyMap<string /* memoryId */, MemoryRecord>;

export interface ResolutionOptions {
  /** Content similarity (0..1) at which an item without a merge-key match reinforces an existing memory. */
  readonly similarityThreshold: number;
  readonly recordedAt: string;
  /** Attributes of the user pinned (always injected first); DEFAULT_PINNED_ATTRIBUTES when absent. */
  readonly pinnedAttributes?: readonly string[];
  /**
   * Facts of a sensitive family (`SENSITIVE_FAMILIES`: health, allergies): `pin` them like the other
   * constraints (the default), keep them `unpinned` (ranked like any memory), or store them `off` (not
   * at all: the items are dropped; the turn's episode keeps the words as said).
   */
  readonly sensitiveFacts?: SensitiveFacts;
}

export type SensitiveFacts = 'pin' | 'unpinned' | 'off';
export const SENSITIVE_FACTS_MODES: readonly SensitiveFacts[] = ['pin', 'unpinned', 'off'];

/**
 * Standing constraints, pinned for whoever they are about (the user, or a person they name: "我女儿对
 * 花生过敏"): a prompt about dinner or a trip needs them though it never names them. The families of
 * the constraint and identity rules: `allergy:<what>`, `diet:<what>`, `health:<condition>`,
 * `accessibility:<need>`.
 */
export const PINNED_FAMILIES: readonly string[] = ['allergy', 'diet', 'health', 'accessibility'];

/** Families whose facts are health data: marked `sensitive` wherever memories are shown or exported. */
export const SENSITIVE_FAMILIES: readonly string[] = ['allergy', 'health'];

/** The family of an attribute: `diet` for `diet:香菜`, the attribute itself when it has none. */
export function familyOf(attribute: string): string {
  const colon = attribute.indexOf(':');
  return colon < 0 ? attribute : attribute.slice(0, colon);
}

/** Whether a memory (or an item) of this attribute is health data. */
export function isSensitive(attribute: string): boolean {
  return SENSITIVE_FAMILIES.includes(familyOf(attribute));
}

/**
 * The facts layer (always injected first, before anything ranked): the profile a user builds by
 * talking — who they are, who their people and animals are (`family:<who>`: an entry names an
 * attribute or a family of them), where they live and work, what they drive, where their parcels go, the
 * team's stack and recurring meetings. A prompt about a gym near home, a self-introduction or a CI
 * cache needs them though it never names them, and a change of circumstance ("we finally moved to
 * Leeds") supersedes them by their attribute.
 *
 * History: only the name was pinned while the eval counted pinned facts among an answer's ranked
 * slots (pinning role, employer and city then cost one slot per answer, MRR 0.50 against 0.57).
 * The eval now scores pinned facts apart (they come back for every query by design), and the facts
 * zone orders them by the question (`recall-pipeline.ts`), so a tight budget keeps the relevant ones.
 * Budgets and deadlines stay ranked: they belong to one purchase or project and go stale with it.
 * Deployments that want fewer or more pinned pass `pinnedAttributes`.
 */
export const DEFAULT_PINNED_ATTRIBUTES: readonly string[] = [
  'name',
  'location',
  'current_location',
  'employer',
  'role',
  'car',
  'shipping_address',
  'tech_stack',
  'ci',
  'weekly_meeting',
  'standup',
  'family',
];
