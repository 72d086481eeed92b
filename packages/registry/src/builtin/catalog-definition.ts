/**
 * The definition the generic store serves for a catalogue resource before any hand-written
 * behaviour (groups/<group>/): names, scope, verbs, versions with their generated schemas,
 * kube's etcd prefix and storage version, kube's strategy switches, a `status` subresource
 * where kube has one, NAME and AGE columns, and the strategy every built-in shares.
 */
import type { PrinterColumn } from '@kapi/machinery';
import { defaultColumns } from '@kapi/machinery';
import { catalogKinds, type CatalogGroup, type CatalogResource } from '@kapi/catalog';
import type { ResourceDefinition, SubresourceDefinition, Verb, VersionDefinition } from '../definition.js';
import { builtinStrategy } from './builtin-strategy.js';
import { schemaOf } from './schemas.js';

/**
 * kube's default table convertor (Name, Created At): the columns of the kinds kube has no
 * printer for (Roles, ClusterRoles, LimitRanges, CSIStorageCapacities...); groups give the
 * others their printers.
 */
export const GENERIC_COLUMNS: readonly PrinterColumn[] = defaultColumns;

/** Subresources the generic store serves by itself (the rest need a component of their own). */
const GENERIC_SUBRESOURCES = new Set(['status']);

const schemaNames = new Map(catalogKinds().map((k) => [`${k.group}/${k.version}/${k.kind}`, k.schema]));

function kindSchema(group: string, version: string, kind: string) {
  const name = schemaNames.get(`${group}/${version}/${kind}`);
  if (name === undefined) throw new Error(`the catalogue has no schema for ${group}/${version} ${kind}`);
  return schemaOf(name);
}

/**
 * The generic definition of `plural` in `group` (one entry per version that serves it, in
 * kube's preference order). Throws when the group does not serve it.
 */
export function catalogDefinition(group: CatalogGroup, plural: string): ResourceDefinition {
  const entries = group.versions.flatMap((v) => v.resources.filter((r) => r.resource === plural).map((r) => ({ version: v.version, resource: r })));
  const first = entries[0];
  if (first === undefined) throw new Error(`${plural}.${group.group} is not in the catalogue`);
  const r: CatalogResource = first.resource;
  const storedHere = r.storage.group === group.group;
  const versions: VersionDefinition[] = entries.map(({ version, resource }) => ({
    name: version,
    served: true,
    storage: storedHere && r.storage.version === version,
    schema: kindSchema(group.group, version, resource.kind),
  }));
  const subresources: SubresourceDefinition[] = (r.subresources ?? [])
    .filter((s) => GENERIC_SUBRESOURCES.has(s.name))
    .map((s) => ({ name: s.name as 'status', verbs: s.verbs.filter((v): v is 'get' | 'update' | 'patch' => v === 'get' || v === 'update' || v === 'patch') }));
  return {
    group: group.group,
    kind: r.kind,
    listKind: r.listKind ?? `${r.kind}List`,
    plural,
    singular: r.singular,
    ...(r.shortNames !== undefined ? { shortNames: [...r.shortNames] } : {}),
    ...(r.categories !== undefined ? { categories: [...r.categories] } : {}),
    namespaced: r.namespaced,
    versions,
    verbs: r.verbs as Verb[],
    storagePrefix: r.storage.prefix,
    ...(storedHere ? {} : { storageApiVersion: r.storage.group === '' ? r.storage.version : `${r.storage.group}/${r.storage.version}` }),
    hasStatus: subresources.some((s) => s.name === 'status'),
    ...(subresources.length > 0 ? { subresources } : {}),
    omitEmptyCollections: true,
    enforceSchemaRequired: false,
    responseKindGroupVersion: 'omitOwn',
    allowCreateOnUpdate: r.strategy.allowCreateOnUpdate,
    allowUnconditionalUpdate: r.strategy.allowUnconditionalUpdate,
    returnDeletedObject: r.strategy.returnDeletedObject,
    ...(r.strategy.generation !== undefined ? { managesGeneration: r.strategy.generation === 'bump' ? true : 'onCreate' } : {}),
    printerColumns: GENERIC_COLUMNS,
    strategy: builtinStrategy({}),
  };
}
