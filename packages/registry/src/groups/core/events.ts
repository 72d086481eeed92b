/**
 * core/v1 Event: a report of something that happened to an object. Validated as kube
 * validates core/v1 events (legacy rules): without `eventTime`, `involvedObject.namespace`
 * must match the event's namespace (or be empty in "default"); with `eventTime`,
 * reportingComponent, reportingInstance, action and reason are required (kube's
 * legacyValidateEvent). events.k8s.io serves the same objects (events-k8s-io.ts). PUT may create.
 * Field selectors: involvedObject.{kind,namespace,name,uid,apiVersion,resourceVersion,
 * fieldPath}, reason, reportingComponent, source (source.component, else
 * reportingComponent) and type.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { fieldInvalid, fieldRequired, isDNS1123Subdomain, isQualifiedName } from '@kapi/machinery';
import type { FieldGetter, ResourceDefinition } from '../../definition.js';
import { builtinStrategy, stringAt } from '../../builtin/builtin-strategy.js';
import { eventColumns } from './event-columns.js';
const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
const ACTION_LENGTH_LIMIT = 128;
const REASON_LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;

const involved = (field: string): FieldGetter => (obj) => stringAt(obj, ['involvedObject', field]);

export const eventSelectableFields: Record<string, FieldGetter> = {
  'involvedObject.kind': involved('kind'),
  'involvedObject.namespace': involved('namespace'),
  'involvedObject.name': involved('name'),
  'involvedObject.uid': involved('uid'),
  'involvedObject.apiVersion': involved('apiVersion'),
  'involvedObject.resourceVersion': involved('resourceVersion'),
  'involvedObject.fieldPath': involved('fieldPath'),
  reason: (obj) => stringAt(obj, ['reason']),
  reportingComponent: (obj) => stringAt(obj, ['reportingComponent']),
  source: (obj) => stringAt(obj, ['source', 'component']) || stringAt(obj, ['reportingComponent']),
  type: (obj) => stringAt(obj, ['type']),
};

/**
 * kube's legacyValidateEvent, which every Event write passes (core v1 and events.k8s.io).
 * Field paths are those of kube's internal type (`reportingController` for core v1's
 * `reportingComponent`, `message` for events.k8s.io's `note`).
 */
export function legacyEventErrors(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = obj.metadata.namespace ?? '';
  const involvedNamespace = stringAt(obj, ['involvedObject', 'namespace']) ?? '';
  const eventTime = obj['eventTime'];
  if (eventTime === undefined || eventTime === null || eventTime === '') {
    const matches = involvedNamespace === '' ? namespace === '' || namespace === 'default' : namespace === involvedNamespace;
    if (!matches) errs.push(fieldInvalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') {
      errs.push(fieldInvalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
    const component = stringAt(obj, ['reportingComponent']) ?? '';
    if (component === '') errs.push(fieldRequired('reportingController'));
    for (const msg of isQualifiedName(component)) errs.push(fieldInvalid('reportingController', component, msg));
    const instance = stringAt(obj, ['reportingInstance']) ?? '';
    if (instance === '') errs.push(fieldRequired('reportingInstance'));
    if (instance.length > REPORTING_INSTANCE_LENGTH_LIMIT) {
      errs.push(fieldInvalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    }
    const action = stringAt(obj, ['action']) ?? '';
    if (action === '') errs.push(fieldRequired('action'));
    if (action.length > ACTION_LENGTH_LIMIT) errs.push(fieldInvalid('action', '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    const reason = stringAt(obj, ['reason']) ?? '';
    if (reason === '') errs.push(fieldRequired('reason'));
    if (reason.length > REASON_LENGTH_LIMIT) errs.push(fieldInvalid('reason', '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    const message = stringAt(obj, ['message']) ?? '';
    if (message.length > NOTE_LENGTH_LIMIT) errs.push(fieldInvalid('message', '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(fieldInvalid('namespace', namespace, msg));
  return errs;
}

/** What core v1 events do beyond the generic built-in store. */
export const eventBehaviour: Partial<ResourceDefinition> = {
  selectableFields: eventSelectableFields,
  printerColumns: eventColumns,
  strategy: builtinStrategy({ validate: legacyEventErrors }),
};
