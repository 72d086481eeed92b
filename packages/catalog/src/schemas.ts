/**
 * The OpenAPI v3 component schemas of every catalogue kind and what they reference, by
 * kube's definition names (`io.k8s.api.apps.v1.Deployment`): kube's published documents
 * without prose and without `default`; named Go scalar types carry `x-kapi-go-type`.
 */
import { listGenerated, once, readGenerated } from './generated-file.js';

/** A schema node as JSON (typed as `JSONSchemaProps` by @kapi/machinery). */
export type CatalogSchema = Readonly<Record<string, unknown>>;

const definitions = once(() => {
  const out: Record<string, CatalogSchema> = {};
  for (const file of listGenerated('schemas')) {
    Object.assign(out, readGenerated<{ definitions: Record<string, CatalogSchema> }>(`schemas/${file}`).definitions);
  }
  return out;
});

/** Every definition by name. The objects are shared: never mutate them. */
export function schemaDefinitions(): Readonly<Record<string, CatalogSchema>> {
  return definitions();
}
