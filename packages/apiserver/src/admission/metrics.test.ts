import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { createAdmissionMetrics } from './metrics.js';

async function stepSeries(registry: Registry): Promise<string[]> {
  const text = await registry.getSingleMetricAsString('apiserver_admission_step_admission_duration_seconds');
  return text.split('\n').filter((line) => !line.startsWith('#') && line !== '');
}

void test('recordStep counts each (type, operation, rejected) series on its own, in the right buckets, across resets', async () => {
  const registry = new Registry();
  const metrics = createAdmissionMetrics(registry);
  metrics.recordStep('admit', 'CREATE', false, 0.001);
  metrics.recordStep('admit', 'CREATE', false, 0.03);
  metrics.recordStep('admit', 'CREATE', false, 0.001);
  metrics.recordStep('validate', 'CREATE', true, 3);
  let lines = await stepSeries(registry);
  assert.ok(lines.includes('apiserver_admission_step_admission_duration_seconds_bucket{le="0.005",type="admit",operation="CREATE",rejected="false"} 2'), lines.join('\n'));
  assert.ok(lines.includes('apiserver_admission_step_admission_duration_seconds_bucket{le="0.1",type="admit",operation="CREATE",rejected="false"} 3'));
  assert.ok(lines.includes('apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"} 3'));
  assert.ok(lines.includes('apiserver_admission_step_admission_duration_seconds_sum{type="admit",operation="CREATE",rejected="false"} 0.032'));
  assert.ok(lines.includes('apiserver_admission_step_admission_duration_seconds_bucket{le="2.5",type="validate",operation="CREATE",rejected="true"} 0'));
  assert.ok(lines.includes('apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="true"} 1'));
  registry.resetMetrics();
  metrics.recordStep('admit', 'CREATE', false, 0.001);
  lines = await stepSeries(registry);
  assert.ok(lines.includes('apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"} 1'), lines.join('\n'));
  assert.ok(!lines.some((line) => line.includes('rejected="true"')));
});
