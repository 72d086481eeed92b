/**
 * batch/v1 CronJob. Defaults: concurrencyPolicy Allow, suspend false, history limits 3
 * (successful) and 1 (failed), the job template's PodSpec defaults except restartPolicy.
 * Validation: a schedule robfig/cron parses without TZ= (the timeZone field holds the zone,
 * a zone Go knows), a name of at most 52 characters (Job names get a suffix), the job
 * template's checks. `kubectl get cj`: SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { ageColumn, column, fieldInvalid, fieldNotSupported, fieldRequired, nameColumn, timestampSince } from '@kapi/machinery';
import type { ResourceOverride } from '../../builtin/override.js';
import { builtinStrategy, recordAt } from '../../builtin/builtin-strategy.js';
import { defaultPodTemplateSpec } from '../core/pod-template-defaults.js';
import { containerColumns, ensureRecord, nonNegative, selectorText, setIfAbsent, specOf, statusOf, workloadStatusHooks } from '../apps/pod-controller.js';
import { cronScheduleError } from './cron-schedule.js';
import { validateJobSpec } from './jobs.js';

const MAX_CRONJOB_NAME = 52;

function defaultCronJob(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  setIfAbsent(spec, 'concurrencyPolicy', 'Allow');
  setIfAbsent(spec, 'suspend', false);
  setIfAbsent(spec, 'successfulJobsHistoryLimit', 3);
  setIfAbsent(spec, 'failedJobsHistoryLimit', 1);
  const jobSpec = recordAt(recordAt(spec, 'jobTemplate') ?? {}, 'spec');
  if (jobSpec !== undefined) defaultPodTemplateSpec(jobSpec['template'], { restartPolicy: false });
}

/** A zone Go's time.LoadLocation knows (the IANA database); "Local" is refused by kube. */
function timeZoneError(zone: string): string | undefined {
  if (zone.toLowerCase() === 'local') return 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones';
  if (zone === '' || zone === 'UTC') return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return undefined;
  } catch {
    return `unknown time zone ${zone}`;
  }
}

function validateSchedule(spec: Record<string, unknown>, allowTZ: boolean): FieldError[] {
  const schedule = spec['schedule'];
  if (typeof schedule !== 'string' || schedule === '') return [fieldRequired('spec.schedule')];
  const errs: FieldError[] = [];
  const parseError = cronScheduleError(schedule);
  if (parseError !== undefined) errs.push(fieldInvalid('spec.schedule', schedule, parseError));
  if (schedule.includes('TZ')) {
    if (!allowTZ) errs.push(fieldInvalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    else if (spec['timeZone'] !== undefined) errs.push(fieldInvalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  }
  return errs;
}

function validateCronJob(obj: KubeObject, allowTZ: boolean): FieldError[] {
  const spec = specOf(obj);
  const errs = validateSchedule(spec, allowTZ);
  const zone = spec['timeZone'];
  if (typeof zone === 'string') {
    const problem = timeZoneError(zone);
    if (problem !== undefined) errs.push(fieldInvalid('spec.timeZone', zone, problem));
  }
  const policy = spec['concurrencyPolicy'];
  if (policy !== 'Allow' && policy !== 'Forbid' && policy !== 'Replace') {
    errs.push(fieldNotSupported('spec.concurrencyPolicy', policy ?? '', ['Allow', 'Forbid', 'Replace']));
  }
  errs.push(...nonNegative(spec, 'startingDeadlineSeconds', 'spec'));
  errs.push(...nonNegative(spec, 'successfulJobsHistoryLimit', 'spec'));
  errs.push(...nonNegative(spec, 'failedJobsHistoryLimit', 'spec'));
  const jobSpec = recordAt(recordAt(spec, 'jobTemplate') ?? {}, 'spec') ?? {};
  errs.push(...validateJobSpec(jobSpec, 'spec.jobTemplate.spec'));
  const name = obj.metadata.name ?? '';
  if (name.length > MAX_CRONJOB_NAME) errs.push(fieldInvalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME} characters`));
  return errs;
}

const jobTemplateSpec = (obj: KubeObject) => recordAt(recordAt(specOf(obj), 'jobTemplate') ?? {}, 'spec');

/** kubectl's NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, and CONTAINERS IMAGES SELECTOR with -o wide. */
export const cronJobColumns = [
  nameColumn,
  column('Schedule', 'string', 'The schedule in cron format.', (obj) => String(specOf(obj)['schedule'] ?? '')),
  column('Timezone', 'string', 'The time zone of the schedule.', (obj) => (typeof specOf(obj)['timeZone'] === 'string' ? specOf(obj)['timeZone'] : '<none>')),
  column('Suspend', 'boolean', 'Whether later runs are suspended.', (obj) => {
    const suspend = specOf(obj)['suspend'];
    return typeof suspend === 'boolean' ? (suspend ? 'True' : 'False') : '<unset>';
  }),
  column('Active', 'integer', 'Number of running jobs.', (obj) => (Array.isArray(statusOf(obj)['active']) ? (statusOf(obj)['active'] as unknown[]).length : 0)),
  column('Last Schedule', 'string', 'When a job was last scheduled.', (obj, now) => {
    const last = statusOf(obj)['lastScheduleTime'];
    return typeof last === 'string' ? timestampSince(last, now) : '<none>';
  }),
  ageColumn,
  ...containerColumns((obj) => recordAt(jobTemplateSpec(obj) ?? {}, 'template')),
  column('Selector', 'string', 'The label selector of the jobs\' pods.', (obj) => {
    const selector = jobTemplateSpec(obj)?.['selector'];
    return selector === undefined ? '<none>' : selectorText(selector);
  }, { priority: 1 }),
];

export const cronJobOverride: ResourceOverride = (generated) => ({
  ...generated,
  printerColumns: cronJobColumns,
  strategy: builtinStrategy({
    decode: defaultCronJob,
    ...workloadStatusHooks([]),
    validate: (obj) => validateCronJob(obj, false),
  }),
});
