/**
 * Pod Security Standards levels, versions and a namespace's policy, as kube 1.32's
 * k8s.io/pod-security-admission/api reads them from the `pod-security.kubernetes.io/*`
 * namespace labels: a level is privileged, baseline or restricted; a version is `latest` or
 * `v1.<minor>`. An unparsable enforce level fails closed (restricted), an unparsable audit or
 * warn level fails open (privileged), an unparsable version means latest; each is reported as
 * a field error on `metadata.labels[<label>]`. Without a warn label, warn follows an enforce
 * level that is stricter than the default warn level.
 */
import { fieldInvalid, type FieldError } from '@kapi/machinery';

export type Level = 'privileged' | 'baseline' | 'restricted';
export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];
/** A minor version of 1.x; LATEST stands for any version at or after the newest checks. */
export const LATEST = Number.POSITIVE_INFINITY;

export interface LevelVersion {
  readonly level: Level;
  /** The minor version (`v1.<minor>`), or LATEST. */
  readonly version: number;
}

export interface Policy {
  readonly enforce: LevelVersion;
  readonly audit: LevelVersion;
  readonly warn: LevelVersion;
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const MODES = ['enforce', 'audit', 'warn'] as const;
export type Mode = (typeof MODES)[number];

export const PRIVILEGED_LATEST: LevelVersion = { level: 'privileged', version: LATEST };
export const DEFAULT_POLICY: Policy = { enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST };

export function formatLevelVersion(lv: LevelVersion): string {
  return `${lv.level}:${formatVersion(lv.version)}`;
}

export function formatVersion(version: number): string {
  return version === LATEST ? 'latest' : `v1.${version}`;
}

export function parseLevel(value: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(value) ? (value as Level) : undefined;
}

export function parseVersion(value: string): number | undefined {
  if (value === 'latest') return LATEST;
  const match = /^v1\.(0|[1-9][0-9]*)$/.exec(value);
  return match === null ? undefined : Number(match[1]);
}

export const compareLevels = (a: Level, b: Level): number => LEVELS.indexOf(a) - LEVELS.indexOf(b);
export const sameLevelVersion = (a: LevelVersion, b: LevelVersion): boolean => a.level === b.level && a.version === b.version;

const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';

/** The policy a namespace's labels give over `defaults`, and the label errors (in kube's order). */
export function policyFromLabels(labels: Readonly<Record<string, string>> | undefined, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (labels === undefined || Object.keys(labels).length === 0) return { policy: defaults, errors };
  const field = (label: string) => `metadata.labels[${label}]`;
  const modes: Record<Mode, { level: Level; version: number }> = {
    enforce: { ...defaults.enforce },
    audit: { ...defaults.audit },
    warn: { ...defaults.warn },
  };
  let hasEnforceLevel = false;
  let hasWarnLevel = false;
  let hasWarnVersion = false;
  for (const mode of MODES) {
    const levelLabel = `${LABEL_PREFIX}${mode}`;
    const levelValue = labels[levelLabel];
    if (levelValue !== undefined) {
      const level = parseLevel(levelValue);
      if (level === undefined) errors.push(fieldInvalid(field(levelLabel), levelValue, LEVEL_ERROR));
      // An unreadable enforce level fails closed; audit and warn fail open.
      modes[mode].level = level ?? (mode === 'enforce' ? 'restricted' : 'privileged');
      if (mode === 'enforce') hasEnforceLevel = level !== undefined;
      if (mode === 'warn') hasWarnLevel = true;
    }
    const versionLabel = `${LABEL_PREFIX}${mode}-version`;
    const versionValue = labels[versionLabel];
    if (versionValue !== undefined) {
      const version = parseVersion(versionValue);
      if (version === undefined) errors.push(fieldInvalid(field(versionLabel), versionValue, VERSION_ERROR));
      modes[mode].version = version ?? LATEST;
      if (mode === 'warn') hasWarnVersion = true;
    }
  }
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(modes.enforce.level, modes.warn.level) > 0) {
    modes.warn.level = modes.enforce.level;
    if (!hasWarnVersion) modes.warn.version = modes.enforce.version;
  }
  return { policy: modes, errors };
}

export const fullyPrivileged = (p: Policy): boolean => MODES.every((m) => p[m].level === 'privileged');
