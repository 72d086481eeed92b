/**
 * --admission-control-config-file: a PodSecurityConfiguration inline or by path, kube's
 * startup errors for bad ones (texts of kube-apiserver 1.32.13), and refusal of configuration
 * kapi would ignore.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { readAdmissionConfiguration } from './config-file.js';
import { LATEST } from './pod-security/policy.js';

const dir = mkdtempSync(join(tmpdir(), 'kapi-admission-config-'));
const ENABLED = ['NamespaceLifecycle', 'PodSecurity', 'ValidatingAdmissionWebhook'];
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const admission = (plugins: string) => `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n${plugins}`;
const podSecurity = (body: string) => `apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\n${body}`;
const errorOf = (path: string) => {
  try {
    readAdmissionConfiguration(path, ENABLED);
  } catch (err) {
    return (err as Error).message;
  }
  return assert.fail('no error');
};

void describe('--admission-control-config-file', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  void it('reads PodSecurity defaults and exemptions, inline or from a relative path', () => {
    const inline = file('inline.yaml', admission(`- name: PodSecurity\n  configuration:\n    ${podSecurity('defaults:\n  enforce: baseline\n  warn: restricted\n  warn-version: v1.25\nexemptions:\n  namespaces: [kube-system]\n  usernames: [admin]\n').split('\n').join('\n    ')}`));
    assert.deepEqual(readAdmissionConfiguration(inline, ENABLED), {
      podSecurity: {
        defaults: { enforce: { level: 'baseline', version: LATEST }, audit: { level: 'privileged', version: LATEST }, warn: { level: 'restricted', version: 25 } },
        exemptions: { namespaces: ['kube-system'], runtimeClasses: [], usernames: ['admin'] },
      },
    });
    file('psa.yaml', podSecurity('defaults:\n  audit: restricted\n'));
    const byPath = readAdmissionConfiguration(file('by-path.yaml', admission('- name: PodSecurity\n  path: psa.yaml\n')), ENABLED);
    assert.equal(byPath.podSecurity?.defaults?.audit.level, 'restricted');
    // A plugin not enabled is not read (kube's behaviour), even when its file is missing.
    assert.deepEqual(readAdmissionConfiguration(file('disabled.yaml', admission('- name: EventRateLimit\n  path: missing.yaml\n')), ENABLED), {});
  });

  void it('fails with kube\'s texts for unreadable files and invalid configuration, and refuses what kapi would ignore', () => {
    const missing = join(dir, 'nope.yaml');
    assert.equal(errorOf(missing), `failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`);
    const levels = file('levels.yaml', admission(`- name: PodSecurity\n  configuration:\n    ${podSecurity('defaults:\n  enforce: bogus\n  warn-version: "1.2"\n').split('\n').join('\n    ')}`));
    assert.equal(errorOf(levels), 'failed to apply admission: failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: [enforce: must be one of privileged, baseline, restricted, warn-version: must be "latest" or "v1.x"]');
    const exemptions = file('exemptions.yaml', admission(`- name: PodSecurity\n  configuration:\n    ${podSecurity('exemptions:\n  usernames: [""]\n  namespaces: ["Bad_NS"]\n').split('\n').join('\n    ')}`));
    assert.equal(errorOf(exemptions), 'failed to apply admission: failed to initialize admission plugin "PodSecurity": PodSecurity invalid: [exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), exemptions.usernames[0]: Invalid value: "": username must not be empty]');
    const webhook = file('webhook.yaml', admission('- name: ValidatingAdmissionWebhook\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: WebhookAdmissionConfiguration\n    kubeConfigFile: /x\n'));
    assert.equal(errorOf(webhook), 'failed to apply admission: configuration of admission plugin "ValidatingAdmissionWebhook" is not implemented by kapi (it reads PodSecurity\'s)');
  });

  void it('kapi-apiserver exits 1 with the error', () => {
    const bin = fileURLToPath(new URL('../bin.js', import.meta.url));
    const bad = spawnSync(process.execPath, [bin, '--etcd-servers=http://127.0.0.1:1', `--admission-control-config-file=${join(dir, 'nope.yaml')}`], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^Error: failed to read plugin config: unable to read admission control configuration from /);
  });
});
