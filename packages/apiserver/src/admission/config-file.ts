/**
 * --admission-control-config-file: kube's AdmissionConfiguration (apiserver.config.k8s.io/v1,
 * v1alpha1), a list of `plugins[]` each with an inline `configuration` or a `path` (relative
 * to the file's folder). As in kube, only the configuration of an enabled plugin is read.
 * kapi reads PodSecurity's (a PodSecurityConfiguration: defaults and exemptions, validated as
 * kube does); configuration for any other enabled plugin is refused at startup, since kapi
 * would ignore it. Errors carry kube's startup texts where kapi knows them.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isDNS1123Label, isDNS1123Subdomain } from '@kapi/machinery';
import type { PodSecurityOptions } from './pod-security/plugin.js';
import { LATEST, MODES, parseLevel, parseVersion, type Level, type Policy } from './pod-security/policy.js';

export class AdmissionConfigError extends Error {}

export interface AdmissionConfiguration {
  readonly podSecurity?: PodSecurityOptions;
}

type Json = Record<string, unknown>;
const rec = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);
const ADMISSION_CONFIG_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];
const POD_SECURITY_VERSIONS = ['pod-security.admission.config.k8s.io/v1', 'pod-security.admission.config.k8s.io/v1beta1', 'pod-security.admission.config.k8s.io/v1alpha1'];

function readDocument(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    // Go's *PathError text: `open <path>: <errno text>`.
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    throw new AdmissionConfigError(`failed to read plugin config: unable to read admission control configuration from ${JSON.stringify(path)} [open ${path}: ${reason}]`);
  }
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new AdmissionConfigError(`failed to read plugin config: unable to decode ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
}

/** Reads the file for the enabled plugins. Throws AdmissionConfigError. */
export function readAdmissionConfiguration(path: string, enabledPlugins: readonly string[]): AdmissionConfiguration {
  const doc = rec(readDocument(path));
  if (doc === undefined || doc['kind'] !== 'AdmissionConfiguration' || !ADMISSION_CONFIG_VERSIONS.includes(String(doc['apiVersion']))) {
    throw new AdmissionConfigError(`failed to read plugin config: ${JSON.stringify(path)} is not an AdmissionConfiguration of ${ADMISSION_CONFIG_VERSIONS.join(', ')}`);
  }
  const plugins = Array.isArray(doc['plugins']) ? doc['plugins'].map((p) => rec(p) ?? {}) : [];
  let podSecurity: PodSecurityOptions | undefined;
  for (const plugin of plugins) {
    const name = String(plugin['name'] ?? '');
    if (!enabledPlugins.includes(name)) continue;
    let configuration: unknown = plugin['configuration'];
    if (typeof plugin['path'] === 'string' && plugin['path'] !== '') {
      const file = isAbsolute(plugin['path']) ? plugin['path'] : join(dirname(path), plugin['path']);
      configuration = readDocument(file);
    }
    if (name !== 'PodSecurity') throw new AdmissionConfigError(`failed to apply admission: configuration of admission plugin ${JSON.stringify(name)} is not implemented by kapi (it reads PodSecurity's)`);
    podSecurity = podSecurityConfiguration(rec(configuration) ?? {});
  }
  return podSecurity !== undefined ? { podSecurity } : {};
}

/** A PodSecurityConfiguration: defaults (privileged:latest when absent) and exemptions. */
export function podSecurityConfiguration(doc: Json): PodSecurityOptions {
  const fail = (message: string) => new AdmissionConfigError(`failed to apply admission: failed to initialize admission plugin "PodSecurity": ${message}`);
  if (doc['kind'] !== 'PodSecurityConfiguration' || !POD_SECURITY_VERSIONS.includes(String(doc['apiVersion']))) {
    throw fail(`PodSecurity configuration error: expected a PodSecurityConfiguration of ${POD_SECURITY_VERSIONS.join(', ')}`);
  }
  const raw = rec(doc['defaults']) ?? {};
  const parseErrors: string[] = [];
  const modes = {} as Record<(typeof MODES)[number], { level: Level; version: number }>;
  for (const mode of MODES) {
    const levelText = raw[mode] === undefined ? 'privileged' : String(raw[mode]);
    const versionText = raw[`${mode}-version`] === undefined ? 'latest' : String(raw[`${mode}-version`]);
    const level = parseLevel(levelText);
    const version = parseVersion(versionText);
    if (level === undefined) parseErrors.push(`${mode}: must be one of privileged, baseline, restricted`);
    if (version === undefined) parseErrors.push(`${mode}-version: must be "latest" or "v1.x"`);
    modes[mode] = { level: level ?? 'privileged', version: version ?? LATEST };
  }
  if (parseErrors.length > 0) throw fail(`PodSecurity configuration error: ${parseErrors.length === 1 ? parseErrors[0]! : `[${parseErrors.join(', ')}]`}`);
  const exemptions = rec(doc['exemptions']) ?? {};
  const strings = (key: string) => (Array.isArray(exemptions[key]) ? (exemptions[key] as unknown[]).map((v) => String(v)) : []);
  const namespaces = strings('namespaces');
  const runtimeClasses = strings('runtimeClasses');
  const usernames = strings('usernames');
  const errors: string[] = [];
  const checkNames = (key: string, values: readonly string[], check: (v: string) => string[]) => {
    const seen = new Set<string>();
    values.forEach((value, i) => {
      const field = `exemptions.${key}[${i}]`;
      const problems = check(value);
      if (problems.length > 0) errors.push(`${field}: Invalid value: ${JSON.stringify(value)}: ${problems.join('; ')}`);
      else if (seen.has(value)) errors.push(`${field}: Duplicate value: ${JSON.stringify(value)}`);
      seen.add(value);
    });
  };
  checkNames('namespaces', namespaces, isDNS1123Label);
  checkNames('runtimeClasses', runtimeClasses, isDNS1123Subdomain);
  checkNames('usernames', usernames, (v) => (v === '' ? ['username must not be empty'] : []));
  if (errors.length > 0) throw fail(`PodSecurity invalid: ${errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`}`);
  const defaults: Policy = modes;
  return { defaults, exemptions: { namespaces, runtimeClasses, usernames } };
}
