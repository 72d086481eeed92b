/**
 * kube's human-readable durations (apimachinery util/duration HumanDuration), as kubectl
 * prints ages: `45s`, `5m3s`, `3h12m`, `4d2h`, `2y30d`.
 */

/** `d` in milliseconds as kube renders it; negative beyond -1 s is `<invalid>`. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * kubectl's age of a timestamp relative to `now` (ms since the epoch): `<unknown>` when the
 * timestamp is absent or unparsable.
 */
export function timestampSince(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now - at);
}
