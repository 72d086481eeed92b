/**
 * Every difference the differential suite accepts between kube-apiserver 1.32 and kapi, with
 * the reason. A difference is one field path of one case's answer (see compare.ts); an entry
 * covers it when `cases` matches the case name and `path` matches the start of the field path.
 *
 * DELIBERATE: kapi answers differently on purpose (a documented kapi extension or a piece of
 * kube that kapi does not have by design). NOT_YET: known gaps of kapi, each tracked by an
 * issue; they are listed so the suite catches every *new* difference, and are removed as they
 * are fixed. Nothing else may differ.
 */

export interface DeclaredDifference {
  /** The case names (exact string, or a pattern). */
  readonly cases: string | RegExp;
  /** The start of the field path (`status`, `body.metadata.labels`, ...), or a pattern. */
  readonly path: string | RegExp;
  readonly reason: string;
}

const catalogue = (resources: readonly string[], verbs = '(create|get|change|delete)') => new RegExp(`^(${resources.map((r) => r.replace(/[./]/g, '\\$&')).join('|')}) ${verbs}$`);

export const DELIBERATE: readonly DeclaredDifference[] = [
  { cases: catalogue(['/services']), path: /^body\.spec\.clusterIPs?(\.|$)/, reason: 'environment, not behaviour: each server allocates a free cluster IP of its own range at random' },
  {
    cases: catalogue(['admissionregistration.k8s.io/validatingadmissionpolicies'], '(get|change)'),
    path: /^body\.(status|metadata\.managedFields)(\.|$)/,
    reason: 'environment, not behaviour: kapi runs the validatingadmissionpolicy-status-controller that writes status.typeChecking (kube-controller-manager\'s), and the reference runs without a kube-controller-manager',
  },
  { cases: 'api', path: 'body.serverAddressByClientCIDRs', reason: 'each server reports the address it was reached at / advertises: environment, not behaviour' },
  // kapi writes its own descriptions, in Table columns as in its OpenAPI documents.
  {
    // configmaps, and each built-in kind whose Table the suite reads (`<group>/<plural>[ rich| list| dangling] as table`).
    cases: /^(configmaps|[a-z0-9.]*\/[a-z]+( rich| list| dangling)?) as table$/,
    path: /^body\.columnDefinitions\.[0-9]+\.description$/,
    reason: 'kube describes a column by the Go type\'s field documentation, upstream prose kapi does not copy (a description is for people; no client reads it)',
  },
  { cases: 'widgets as table', path: 'body.columnDefinitions.0.description', reason: 'as for configmaps, the Name column (metadata.name\'s documentation); a custom resource\'s own columns carry the CRD\'s descriptions, as on kube, and are compared' },
];

export const NOT_YET: readonly DeclaredDifference[] = [
  // Empty: every gap the suite found is fixed. A new one goes here with its issue until it is.
];

export function declared(caseName: string, path: string): DeclaredDifference | undefined {
  const matches = (pattern: string | RegExp, text: string, prefix: boolean) =>
    typeof pattern === 'string' ? (prefix ? text === pattern || text.startsWith(`${pattern}.`) : text === pattern) : pattern.test(text);
  return [...DELIBERATE, ...NOT_YET].find((d) => matches(d.cases, caseName, false) && matches(d.path, path, true));
}
