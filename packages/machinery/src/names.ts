/** Generated names, UIDs and timestamps as the API server assigns them. */
import { randomInt, randomUUID } from 'node:crypto';

const GENERATE_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const RANDOM_LENGTH = 5;
const MAX_NAME_LENGTH = 63;
const MAX_GENERATED_BASE_LENGTH = MAX_NAME_LENGTH - RANDOM_LENGTH;

/** kube's SimpleNameGenerator: `base` cut to 58 characters plus 5 random characters. */
export function generateName(base: string): string {
  const prefix = base.length > MAX_GENERATED_BASE_LENGTH ? base.slice(0, MAX_GENERATED_BASE_LENGTH) : base;
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += GENERATE_NAME_ALPHABET[randomInt(GENERATE_NAME_ALPHABET.length)];
  return prefix + suffix;
}

/** A new random (v4) UID. */
export function newUID(): string {
  return randomUUID();
}

/** The current time in RFC 3339 with seconds precision, UTC: `2024-01-02T03:04:05Z`. */
export function nowRFC3339(now?: Date): string {
  if (now !== undefined) return `${now.toISOString().slice(0, 19)}Z`;
  // Formatted once per second: every write stamps managedFields (and creates their timestamp).
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastFormatted = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  }
  return lastFormatted;
}

let lastSecond = Number.NaN;
let lastFormatted = '';
