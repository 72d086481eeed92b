import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cronScheduleError } from './cron-schedule.js';

void describe('cron schedules as robfig/cron (kube 1.32) parses them', () => {
  void it('accepts the standard forms and descriptors', () => {
    for (const ok of ['*/5 * * * *', '0 0 * * mon-fri', '15 3 1,15 jan-jun *', '@hourly', '@every 1h30m', 'TZ=UTC * * * * *', '0 0 ? * *', '5 * * * 0']) {
      assert.equal(cronScheduleError(ok), undefined, ok);
    }
  });
  void it('words each error as kube answers it', () => {
    const cases: [string, string][] = [
      ['bogus', 'expected exactly 5 fields, found 1: [bogus]'],
      ['61 * * * *', 'end of range (61) above maximum (59): 61'],
      ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
      ['0 0 * * 8', 'end of range (8) above maximum (6): 8'],
      ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
      ['*/0 * * * *', 'step of range should be a positive number: */0'],
      ['a * * * *', 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'],
      ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
      ['@weird', 'unrecognized descriptor: @weird'],
      ['@every x', 'failed to parse duration @every x: time: invalid duration "x"'],
    ];
    for (const [schedule, message] of cases) assert.equal(cronScheduleError(schedule), message, schedule);
  });
});
