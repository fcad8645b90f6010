import type { ScopeCues } from '../../language-pack';

/** English time scopes a statement sets for itself (`extraction/time-scope.ts`). */
export const enScopes: ScopeCues = {
  day: ['today', 'tonight', 'this morning', 'this afternoon', 'this evening', 'right now', 'at the moment'],
  days: ['for a few days', 'for the next few days', 'for a couple of days', 'these couple of days'],
  week: ['this week', 'for the week', 'all week'],
  trip: ['for this trip', 'on this trip', 'during this trip', 'for the trip', 'while travelling', 'while traveling'],
  task: ['this time', 'for this task', 'for this one', 'for now', 'just for now'],
  // "I moved today", "I went to a concert tonight", "Today I did …": what happened, not a state that holds.
  past: [
    String.raw`\b(?:was|were|went|did|had|got|took|made|came|saw|found|bought|told|said|met|ran|ate|drank|felt|thought|left|lost|won|began|gave)\b`,
    // A participle after a being verb is a state ("I'm tired today"), not an event.
    String.raw`\b(?<!(?:am|'m|is|are|'re|feel|feeling|so|very|really|quite|pretty|get|getting)\s)[a-z]{3,}ed\b`,
    String.raw`\b(?:have|has|'ve)\s+(?:been|done|finished|started)\b`,
  ],
};
