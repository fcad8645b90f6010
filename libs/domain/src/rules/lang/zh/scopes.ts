import type { ScopeCues } from '../../language-pack';

/** Chinese time scopes a statement sets for itself (`extraction/time-scope.ts`). */
export const zhScopes: ScopeCues = {
  day: ['今天', '今晚', '今早', '今天上午', '今天下午', '今儿', '眼下', '此刻'],
  // "这两天在出差" is bounded; "这几天", "这阵子" (lately: "宽带这几天晚上老掉线") describe what has been going on and may go on.
  days: ['这两天', '接下来几天'],
  week: ['这周', '这星期', '本周', '这个星期', '这礼拜', '这个礼拜'],
  trip: ['这次出差', '这次旅行', '这趟', '出差期间', '旅行期间'],
  task: ['这次', '这回', '这一次', '暂时先', '先用', '临时'],
  // "我今天入职了", "今天去过了": an event that happened, not a state that holds. Not "为了", "除了", "了解".
  past: [String.raw`(?<![为除])了(?!解)`, '过了', '已经'],
};
