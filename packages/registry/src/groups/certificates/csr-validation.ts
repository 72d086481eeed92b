/**
 * kube's CertificateSigningRequest validation that clients meet: the request must be a PEM
 * CERTIFICATE REQUEST, usages from kube's list, a qualified signer name, a requested duration
 * of at least 10 minutes; conditions well formed (Approved, Denied and Failed only "True",
 * once each, Approved and Denied not together); `/approval` and `/status` may not remove
 * approval conditions, `/status` may not add them; an issued certificate must hold a
 * CERTIFICATE PEM block.
 */
import type { FieldError, KubeObject } from '@kapi/machinery';
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from '@kapi/machinery';
import { recordAt } from '../../builtin/builtin-strategy.js';

const USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment', 'decipher only',
  'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'key agreement',
  'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping',
];
/** Condition types that may only be "True" and appear once. */
const SINGLE_TRUE = ['Approved', 'Denied', 'Failed'];
/** Condition types an update may never remove. */
const PERMANENT = ['Approved', 'Denied', 'Failed'];
const MIN_EXPIRATION_SECONDS = 600;

export type Condition = Record<string, unknown>;

export function conditionsOf(csr: KubeObject): Condition[] {
  const list = recordAt(csr, 'status')?.['conditions'];
  return Array.isArray(list) ? list.filter((c): c is Condition => typeof c === 'object' && c !== null) : [];
}

const specOf = (csr: KubeObject): Record<string, unknown> => recordAt(csr, 'spec') ?? {};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The decoded bytes of a base64 []byte field ("" when absent or not base64). */
function bytesOf(value: unknown): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
}

/** The types of the PEM blocks in `data`, in order. */
function pemBlockTypes(data: Buffer): string[] {
  const types: string[] = [];
  const pattern = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
  for (const match of data.toString('latin1').matchAll(pattern)) types.push(match[1]!);
  return types;
}

/** Go's %#v of a []byte. */
function goBytes(data: Buffer): string {
  if (data.length === 0) return '[]byte(nil)';
  return `[]byte{${[...data].map((b) => `0x${b.toString(16)}`).join(', ')}}`;
}

function validateConditions(csr: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  conditionsOf(csr).forEach((condition, i) => {
    const path = `status.conditions[${i}]`;
    const type = text(condition['type']);
    const status = text(condition['status']);
    if (type === '') errs.push(fieldRequired(`${path}.type`));
    if (SINGLE_TRUE.includes(type)) {
      if (status !== 'True') errs.push(fieldNotSupported(`${path}.status`, status, ['True']));
      if (seen.has(type)) errs.push(fieldDuplicate(`${path}.type`, type));
      else if ((type === 'Approved' && seen.has('Denied')) || (type === 'Denied' && seen.has('Approved'))) {
        errs.push(fieldInvalid(`${path}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
      seen.add(type);
    } else if (status === '') {
      errs.push(fieldRequired(`${path}.status`));
    } else if (!['True', 'False', 'Unknown'].includes(status)) {
      errs.push(fieldNotSupported(`${path}.status`, status, ['False', 'True', 'Unknown']));
    }
  });
  return errs;
}

function validateCertificate(csr: KubeObject): FieldError[] {
  const certificate = recordAt(csr, 'status')?.['certificate'];
  if (certificate === undefined || certificate === '') return [];
  if (!pemBlockTypes(bytesOf(certificate)).includes('CERTIFICATE')) {
    return [fieldInvalid('status.certificate', '<certificate data>', 'must contain at least one CERTIFICATE PEM block')];
  }
  return [];
}

/** Every write: the spec (as created; later writes keep it) and the conditions. */
export function validateCSR(csr: KubeObject): FieldError[] {
  const spec = specOf(csr);
  const errs: FieldError[] = [];
  const request = bytesOf(spec['request']);
  if (pemBlockTypes(request)[0] !== 'CERTIFICATE REQUEST') errs.push({ type: 'FieldValueInvalid', field: 'spec.request', message: `Invalid value: ${goBytes(request)}: PEM block type must be CERTIFICATE REQUEST` });
  const usages = Array.isArray(spec['usages']) ? spec['usages'] : [];
  if (usages.length === 0) errs.push(fieldRequired('spec.usages'));
  usages.forEach((usage, i) => {
    if (!USAGES.includes(text(usage))) errs.push(fieldNotSupported(`spec.usages[${i}]`, usage, USAGES));
  });
  const signer = text(spec['signerName']);
  if (signer === '') errs.push(fieldRequired('spec.signerName'));
  else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[^/]+$/.test(signer)) {
    errs.push(fieldInvalid('spec.signerName', signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
  }
  const expiration = spec['expirationSeconds'];
  if (typeof expiration === 'number' && expiration < MIN_EXPIRATION_SECONDS) {
    errs.push(fieldInvalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  return [...errs, ...validateConditions(csr), ...validateCertificate(csr)];
}

const typesOf = (csr: KubeObject): Set<string> => new Set(conditionsOf(csr).map((c) => text(c['type'])));

/**
 * An update through `/approval` or `/status` (or of the main resource): approval and failure
 * conditions stay; `/status` may not add approval ones either.
 */
export function validateCSRUpdate(subresource: string, csr: KubeObject, old: KubeObject): FieldError[] {
  const before = typesOf(old);
  const after = typesOf(csr);
  const errs: FieldError[] = [];
  for (const type of PERMANENT) {
    if (before.has(type) && !after.has(type)) errs.push(fieldForbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
  }
  if (subresource !== 'approval') {
    for (const type of ['Approved', 'Denied']) {
      if (!before.has(type) && after.has(type)) errs.push(fieldForbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
    }
  }
  return [...errs, ...validateCSR(csr)];
}
