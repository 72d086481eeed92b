/**
 * kube's DefaultIngressClass admission plugin: an Ingress created without a class (no
 * `spec.ingressClassName`, no `kubernetes.io/ingress.class` annotation) gets the default
 * IngressClass — the newest annotated `ingressclass.kubernetes.io/is-default-class: "true"`,
 * ties broken by name — when there is one. IngressClasses come from an informer copy.
 */
import type { KubeObject } from '@kapi/machinery';
import type { AdmissionPlugin } from '@kapi/registry';
import { newestDefault, type ClassLister } from './storage.js';

const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export function defaultIngressClass(ingressClasses: ClassLister): AdmissionPlugin {
  const isDefault = (c: KubeObject) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true';
  return {
    name: 'DefaultIngressClass',
    handles: (operation) => operation === 'CREATE',
    admit(a) {
      if (a.resource.group !== 'networking.k8s.io' || a.resource.resource !== 'ingresses' || a.subresource !== '' || a.object === undefined) return;
      const spec = (a.object as Record<string, unknown>)['spec'];
      if (typeof spec !== 'object' || spec === null) return;
      const fields = spec as Record<string, unknown>;
      if (fields['ingressClassName'] !== undefined && fields['ingressClassName'] !== null) return;
      if (a.object.metadata.annotations?.[CLASS_ANNOTATION] !== undefined) return;
      const chosen = newestDefault(ingressClasses(), isDefault);
      if (chosen !== undefined) fields['ingressClassName'] = chosen.metadata.name;
    },
  };
}
