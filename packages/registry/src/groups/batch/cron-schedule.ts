/**
 * The check kube's CronJob validation runs on spec.schedule: the standard five-field cron
 * format or an `@` descriptor, parsed as the robfig/cron library kube uses, with its error
 * texts (`expected exactly 5 fields, found 1: [bogus]`, `end of range (61) above maximum
 * (59): 61`, ...). Returns the error text, or undefined when the schedule parses.
 */

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

class CronError extends Error {}

/** Go's strconv.Atoi on a decimal (with sign), as robfig's mustParseInt reports it. */
function parseNumber(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, bounds: Bounds): number {
  const named = bounds.names?.[expr.toLowerCase()];
  return named ?? parseNumber(expr);
}

function checkRange(expr: string, bounds: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, bounds);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseNumber(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < bounds.min) throw new CronError(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new CronError(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

/** Go's time.ParseDuration accepts a sequence of <number><unit>; enough to tell valid from not. */
const GO_DURATION = /^[+-]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^[+-]?0$/;

export function cronScheduleError(spec: string): string | undefined {
  try {
    if (spec.length === 0) throw new CronError('empty spec string');
    let rest = spec;
    if (rest.startsWith('TZ=') || rest.startsWith('CRON_TZ=')) {
      const space = rest.indexOf(' ');
      rest = space < 0 ? '' : rest.slice(space).trim();
    }
    if (rest.startsWith('@')) {
      if (rest.startsWith('@every ')) {
        const duration = rest.slice('@every '.length);
        if (!GO_DURATION.test(duration)) throw new CronError(`failed to parse duration ${rest}: time: invalid duration ${JSON.stringify(duration)}`);
        return undefined;
      }
      if (!DESCRIPTORS.has(rest)) throw new CronError(`unrecognized descriptor: ${rest}`);
      return undefined;
    }
    const fields = rest.split(/\s+/).filter((f) => f !== '');
    if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
    fields.forEach((field, i) => {
      for (const part of field.split(',')) checkRange(part, FIELDS[i]!);
    });
    return undefined;
  } catch (err) {
    if (err instanceof CronError) return err.message;
    throw err;
  }
}
