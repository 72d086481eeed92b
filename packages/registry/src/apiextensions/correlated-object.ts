/**
 * Validation ratcheting's bookkeeping (kube's common.CorrelatedObject): the new and the old
 * value of one place in an updated object, found by walking both along the schema — object
 * fields and map entries by key, items of `x-kubernetes-list-type: map` lists by their keys
 * (other lists do not correlate) — and whether the two are equal (computed once, cached).
 * A rule's failure on an unchanged value is let through on update as a warning.
 */
import type { JSONSchemaProps } from '@kapi/machinery';
import { isPlainObject } from '@kapi/machinery';
import { semanticEqual } from '../semantic-equal.js';
import { mapListOf, type MapList } from './map-list.js';

export class CorrelatedObject {
  private equal: boolean | undefined;
  private readonly children = new Map<string | number, CorrelatedObject | undefined>();
  private oldItems: MapList | undefined;

  constructor(
    readonly value: unknown,
    readonly oldValue: unknown,
    readonly schema: JSONSchemaProps | undefined,
  ) {}

  /** The correlated value of field or map key `field`, or undefined when either side lacks it or the schema does not describe it. */
  key(field: string): CorrelatedObject | undefined {
    if (this.schema === undefined) return undefined;
    if (this.children.has(field)) return this.children.get(field);
    const result = this.correlateKey(field);
    this.children.set(field, result);
    return result;
  }

  private correlateKey(field: string): CorrelatedObject | undefined {
    const value = this.value;
    const old = this.oldValue;
    if (!isPlainObject(value) || !isPlainObject(old)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, field) || !Object.prototype.hasOwnProperty.call(old, field)) return undefined;
    const properties = this.schema?.properties;
    let schema: JSONSchemaProps | undefined;
    if (properties !== undefined && Object.prototype.hasOwnProperty.call(properties, field)) schema = properties[field];
    else if (isPlainObject(this.schema?.additionalProperties)) schema = this.schema.additionalProperties;
    if (schema === undefined) return undefined;
    return new CorrelatedObject(value[field], old[field], schema);
  }

  /** The correlated item at index `i` of a map-type list (matched by its keys in the old list), else undefined. */
  index(i: number): CorrelatedObject | undefined {
    if (this.schema === undefined) return undefined;
    if (this.children.has(i)) return this.children.get(i);
    const result = this.correlateIndex(i);
    this.children.set(i, result);
    return result;
  }

  private correlateIndex(i: number): CorrelatedObject | undefined {
    const value = this.value;
    if (!Array.isArray(value) || value.length <= i) return undefined;
    const oldItem = this.oldItemFor(value[i]);
    if (oldItem === undefined || oldItem === null) return undefined;
    const items = this.schema?.items;
    if (items === undefined) return undefined;
    return new CorrelatedObject(value[i], oldItem, items);
  }

  private oldItemFor(item: unknown): unknown {
    if (!Array.isArray(this.oldValue) || this.schema?.['x-kubernetes-list-type'] !== 'map') return undefined;
    this.oldItems ??= mapListOf(this.schema, this.oldValue);
    return this.oldItems.get(item);
  }

  /** Whether the new value equals the old one (kube's CachedDeepEqual, with its treatment of uncorrelatable parts). */
  deepEqual(): boolean {
    this.equal ??= this.compare();
    return this.equal;
  }

  private compare(): boolean {
    const value = this.value;
    const old = this.oldValue;
    if ((value === null || value === undefined) && (old === null || old === undefined)) return true;
    if (value === null || value === undefined || old === null || old === undefined) return false;
    if (Array.isArray(value) !== Array.isArray(old) || isPlainObject(value) !== isPlainObject(old)) return false;
    if (Array.isArray(value) && Array.isArray(old)) {
      if (value.length !== old.length) return false;
      for (let i = 0; i < value.length; i++) {
        const child = this.index(i);
        if (child === undefined) {
          // Lists that do not correlate by keys compare as a whole.
          return this.oldItems === undefined ? semanticEqual(old, value) : false;
        }
        if (!child.deepEqual()) return false;
      }
      return true;
    }
    if (isPlainObject(value) && isPlainObject(old)) {
      const keys = Object.keys(value);
      if (keys.length !== Object.keys(old).length) return false;
      for (const k of keys) {
        const child = this.key(k);
        if (child === undefined || !child.deepEqual()) return false;
      }
      return true;
    }
    return semanticEqual(old, value);
  }
}
