import { en } from './en';
import { zh } from './zh';

/** The language packs engram ships, in the order their cues are merged. */
export const LANGUAGE_PACKS = [zh, en] as const;
