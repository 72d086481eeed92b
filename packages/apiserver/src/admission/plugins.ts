/**
 * The admission plugin chain's configuration, as kube-apiserver 1.32 reads
 * `--enable-admission-plugins`, `--disable-admission-plugins` and the deprecated
 * `--admission-control`: kube's plugin names, its default-enabled set and its errors.
 * kapi builds the plugins of BUILT_PLUGINS; naming any other plugin to be enabled is a startup
 * error (never silently ignored). The other plugins of kube's default set are not run (see the
 * README's Security section).
 */

/** Every plugin kube-apiserver 1.32 knows, in its order. */
export const ALL_PLUGINS: readonly string[] = [
  'AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists', 'LimitPodHardAntiAffinityTopology',
  'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition', 'AlwaysPullImages', 'ImagePolicyWebhook',
  'PodSecurity', 'PodNodeSelector', 'Priority', 'DefaultTolerationSeconds', 'PodTolerationRestriction', 'EventRateLimit',
  'ExtendedResourceToleration', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction', 'DefaultIngressClass', 'DenyServiceExternalIPs', 'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny',
];

/** kube's default-enabled plugins. */
export const DEFAULT_ENABLED: readonly string[] = [
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'PodSecurity', 'Priority',
  'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize',
  'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'ClusterTrustBundleAttest', 'CertificateSubjectRestriction',
  'DefaultIngressClass', 'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook', 'ResourceQuota',
];

/** The plugins kapi runs. */
export const BUILT_PLUGINS: readonly string[] = [
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds', 'RuntimeClass',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook',
  // Storage, networking, certificates and quota (admission/object-admission.ts).
  'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize', 'CertificateApproval', 'CertificateSigning',
  'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'ResourceQuota',
  // Enabled by default in kube 1.32, where its feature gate is off and it does nothing: the same here.
  'MutatingAdmissionPolicy',
];

/** The plugins kapi runs when no flag names any: kube's default-enabled ones that kapi builds, in kube's order. */
export function defaultAdmissionPlugins(): string[] {
  return ALL_PLUGINS.filter((name) => DEFAULT_ENABLED.includes(name) && BUILT_PLUGINS.includes(name));
}

export interface AdmissionFlags {
  /** --enable-admission-plugins; undefined when the flag is not given. */
  readonly enable?: readonly string[];
  /** --disable-admission-plugins; undefined when the flag is not given. */
  readonly disable?: readonly string[];
  /**
   * --admission-control (deprecated): exactly these plugins; undefined when the flag is not
   * given. Given empty (kwokctl's `--admission-control=`), it runs no plugin at all, as in kube,
   * where an empty list is still a list and disables every plugin.
   */
  readonly admissionControl?: readonly string[];
}

/**
 * The plugins kapi runs, in kube's order. Returns kube's validation errors (to be joined
 * as kube does) when the flags are invalid, and kapi's error for an unbuilt plugin named
 * to be enabled. A flag given counts for kube's mutual-exclusion check even when empty.
 */
export function resolveAdmissionPlugins(flags: AdmissionFlags): { plugins: string[] } | { errors: string[] } {
  const errors: string[] = [];
  const enable = flags.enable ?? [];
  const disable = flags.disable ?? [];
  if (flags.admissionControl !== undefined && (flags.enable !== undefined || flags.disable !== undefined)) {
    errors.push('admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
  }
  for (const [flag, names] of [['enable-admission-plugins', enable], ['disable-admission-plugins', disable], ['admission-control', flags.admissionControl ?? []]] as const) {
    for (const name of names) if (!ALL_PLUGINS.includes(name)) errors.push(`${flag} plugin ${JSON.stringify(name)} is unknown`);
  }
  const overlap = enable.filter((name) => disable.includes(name));
  if (overlap.length > 0) errors.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (errors.length > 0) return { errors };
  const named = flags.admissionControl ?? enable;
  for (const name of named) {
    if (!BUILT_PLUGINS.includes(name) && name !== 'AlwaysAdmit') errors.push(`admission plugin ${name} is not implemented by kapi (built: ${BUILT_PLUGINS.join(', ')})`);
  }
  if (errors.length > 0) return { errors };
  const enabled = flags.admissionControl !== undefined
    ? new Set(flags.admissionControl)
    : new Set([...DEFAULT_ENABLED, ...enable].filter((name) => !disable.includes(name)));
  return { plugins: ALL_PLUGINS.filter((name) => enabled.has(name) && BUILT_PLUGINS.includes(name)) };
}
