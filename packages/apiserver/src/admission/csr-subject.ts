/**
 * The subject organizations (O) of a PEM CERTIFICATE REQUEST (PKCS #10), read from its DER:
 * CertificationRequest → CertificationRequestInfo → subject Name → RDNs of
 * (2.5.4.10, string) attributes. Throws an Error whose message says what is wrong.
 */
const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;
const ORGANIZATION_OID = Buffer.from([0x55, 0x04, 0x0a]);

interface Element {
  readonly tag: number;
  readonly content: Buffer;
  /** The offset after the element. */
  readonly end: number;
}

function readElement(data: Buffer, offset: number): Element {
  if (offset + 2 > data.length) throw new Error('asn1: syntax error: data truncated');
  const tag = data[offset]!;
  let length = data[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > data.length) throw new Error('asn1: syntax error: data truncated');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + data[start + i]!;
    start += bytes;
  }
  if (start + length > data.length) throw new Error('asn1: syntax error: data truncated');
  return { tag, content: data.subarray(start, start + length), end: start + length };
}

function children(content: Buffer): Element[] {
  const out: Element[] = [];
  for (let offset = 0; offset < content.length;) {
    const element = readElement(content, offset);
    out.push(element);
    offset = element.end;
  }
  return out;
}

/** The DER of the first CERTIFICATE REQUEST PEM block. */
function pemRequest(pem: Buffer): Buffer {
  const match = /-----BEGIN CERTIFICATE REQUEST-----([\s\S]*?)-----END CERTIFICATE REQUEST-----/.exec(pem.toString('latin1'));
  if (match === null) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
}

export function csrSubjectOrganizations(pem: Buffer): string[] {
  const request = readElement(pemRequest(pem), 0);
  if (request.tag !== SEQUENCE) throw new Error('asn1: structure error: tags don\'t match');
  const info = children(request.content)[0];
  if (info?.tag !== SEQUENCE) throw new Error('asn1: structure error: tags don\'t match');
  const subject = children(info.content)[1];
  if (subject?.tag !== SEQUENCE) throw new Error('asn1: structure error: tags don\'t match');
  const organizations: string[] = [];
  for (const rdn of children(subject.content)) {
    if (rdn.tag !== SET) continue;
    for (const attribute of children(rdn.content)) {
      const [type, value] = children(attribute.content);
      if (type?.tag === OID && value !== undefined && type.content.equals(ORGANIZATION_OID)) organizations.push(value.content.toString('utf8'));
    }
  }
  return organizations;
}
