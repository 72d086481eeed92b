import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, DynType } from './index.js';

void describe('dyn values (VAP-style variables)', () => {
  const object = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } },
    spec: { replicas: 3, containers: [{ name: 'c', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] },
  };
  const run = (expr: string, obj: unknown = object): unknown => {
    const r = compileRule(expr, { vars: { object: DynType } });
    if (!r.ok) return { compileError: r.errors[0] };
    const out = r.program.evaluate({ object: obj });
    return out.ok ? out.value : { error: out.error };
  };

  void it('reads nested fields, integers as ints, and lists of objects', () => {
    assert.equal(run("object.metadata.labels.app == 'web'"), true);
    assert.equal(run('object.spec.replicas + 1 == 4'), true);
    assert.equal(run("object.spec.containers.all(c, c.image.startsWith('nginx'))"), true);
    assert.equal(run('object.spec.containers[0].ports[0].containerPort == 80'), true);
  });

  void it('has(), in, size() and equality on lazily converted maps', () => {
    assert.equal(run("has(object.metadata.annotations)"), false);
    assert.equal(run("'app' in object.metadata.labels"), true);
    assert.equal(run('object.metadata.labels.size() == 1'), true);
    assert.equal(run("object.metadata.labels == {'app': 'web'}"), true);
    assert.deepEqual(run('object.metadata.nope == 1'), { error: 'no such key: nope' });
  });

  void it('does not touch the input', () => {
    const copy = structuredClone(object);
    run('object.spec.containers.exists(c, c.name == "c")', copy);
    assert.deepEqual(copy, object);
  });
});
