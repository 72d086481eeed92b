import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFieldSelector, parseLabelSelector, type KubeObject } from '@kapi/machinery';
import { everything } from '@kapi/storage';
import { builtinDefinition, configMaps, namespaces } from './builtin/index.js';
import { selectionPredicate } from './field-selection.js';

const pods = builtinDefinition('', 'pods');
const pod = (name: string, namespace: string, nodeName?: string, labels?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, ...(labels ? { labels } : {}) }, spec: nodeName === undefined ? {} : { nodeName } }) as KubeObject;

void test('field requirements: = and != on metadata fields and selectable fields, "" for an absent field', () => {
  const match = (definition: typeof pods, selector: string, obj: KubeObject) => selectionPredicate(definition, undefined, parseFieldSelector(selector)).matches(obj);
  const a = pod('a', 'ns1', 'node-1');
  assert.equal(match(pods, 'metadata.name=a', a), true);
  assert.equal(match(pods, 'metadata.name!=a', a), false);
  assert.equal(match(pods, 'metadata.namespace=ns1,metadata.name=a', a), true);
  assert.equal(match(pods, 'metadata.namespace=ns2,metadata.name=a', a), false);
  assert.equal(match(pods, 'spec.nodeName=node-1', a), true);
  assert.equal(match(pods, 'spec.nodeName=node-2', a), false);
  assert.equal(match(pods, 'spec.nodeName!=node-2', a), true);
  // An absent field is "": an unscheduled pod matches spec.nodeName= and not spec.nodeName!=.
  assert.equal(match(pods, 'spec.nodeName=', pod('b', 'ns1')), true);
  assert.equal(match(pods, 'spec.nodeName!=', pod('b', 'ns1')), false);
  // A cluster-scoped object has no namespace for selection, whatever its metadata says.
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', namespace: 'x' } } as KubeObject;
  assert.equal(match(namespaces, 'metadata.namespace=x', ns), false);
  assert.equal(match(namespaces, 'metadata.namespace=', ns), true);
  assert.equal(match(configMaps, 'metadata.namespace=ns1', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns1' } } as KubeObject), true);
});

void test('labels and fields together; the index hint for an indexed field', () => {
  const predicate = selectionPredicate(pods, parseLabelSelector('app=web'), parseFieldSelector('spec.nodeName=node-1'));
  assert.equal(predicate.matches(pod('a', 'ns1', 'node-1', { app: 'web' })), true);
  assert.equal(predicate.matches(pod('a', 'ns1', 'node-1', { app: 'db' })), false);
  assert.equal(predicate.matches(pod('a', 'ns1', 'node-2', { app: 'web' })), false);
  assert.equal(predicate.index?.field, 'spec.nodeName');
  assert.equal(predicate.index?.value, 'node-1');
  assert.equal(predicate.index?.valueOf(pod('a', 'ns1', 'node-3')), 'node-3');
  assert.equal(selectionPredicate(pods, undefined, undefined), everything);
  assert.equal(selectionPredicate(pods, undefined, parseFieldSelector('spec.nodeName!=node-1')).index, undefined);
});
