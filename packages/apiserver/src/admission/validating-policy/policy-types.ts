/**
 * The parts of admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and
 * ValidatingAdmissionPolicyBinding the plugin reads, as they are stored (the API has
 * defaulted failurePolicy, matchPolicy and the selectors).
 */
import type { KubeObject, LabelSelectorObject } from '@kapi/machinery';

export interface NamedRuleWithOperations {
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly operations?: readonly string[];
  readonly scope?: string;
  readonly resourceNames?: readonly string[];
}

export interface MatchResources {
  readonly namespaceSelector?: LabelSelectorObject;
  readonly objectSelector?: LabelSelectorObject;
  readonly resourceRules?: readonly NamedRuleWithOperations[];
  readonly excludeResourceRules?: readonly NamedRuleWithOperations[];
  readonly matchPolicy?: 'Exact' | 'Equivalent';
}

export interface Validation {
  readonly expression: string;
  readonly message?: string;
  readonly reason?: string;
  readonly messageExpression?: string;
}

export interface PolicySpec {
  readonly paramKind?: { readonly apiVersion?: string; readonly kind?: string };
  readonly matchConstraints?: MatchResources;
  readonly validations?: readonly Validation[];
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly auditAnnotations?: readonly { readonly key: string; readonly valueExpression: string }[];
  readonly matchConditions?: readonly { readonly name: string; readonly expression: string }[];
  readonly variables?: readonly { readonly name: string; readonly expression: string }[];
}

export interface ParamRef {
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: LabelSelectorObject;
  readonly parameterNotFoundAction?: 'Allow' | 'Deny';
}

export interface BindingSpec {
  readonly policyName?: string;
  readonly paramRef?: ParamRef;
  readonly matchResources?: MatchResources;
  readonly validationActions?: readonly ('Deny' | 'Warn' | 'Audit')[];
}

export type PolicyObject = KubeObject & { readonly spec?: PolicySpec };
export type BindingObject = KubeObject & { readonly spec?: BindingSpec };

export const GROUP = 'admissionregistration.k8s.io';
export const POLICIES = 'validatingadmissionpolicies';
export const BINDINGS = 'validatingadmissionpolicybindings';
