import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRule, declTypeFromSchema } from '../index.js';

const self = declTypeFromSchema({
  type: 'object',
  properties: { s: { type: 'string' }, items: { type: 'array', items: { type: 'integer' } }, names: { type: 'array', items: { type: 'string' } } },
})!;

function run(expr: string, obj: Record<string, unknown> = {}): unknown {
  const r = compileRule(expr, { self });
  if (!r.ok) return { compileError: r.errors[0] };
  const out = r.program.evaluate({ self: obj });
  return out.ok ? out.value : { error: out.error };
}

void describe('kube CEL libraries', () => {
  void it('lists: isSorted, sum, min, max, indexOf, lastIndexOf', () => {
    const items = [3, 1, 2, 1];
    assert.equal(run('self.items.isSorted()', { items }), false);
    assert.equal(run('[1, 2, 2].isSorted()'), true);
    assert.equal(run('self.items.sum()', { items }), 7n);
    assert.equal(run('self.items.min()', { items }), 1n);
    assert.equal(run('self.items.max()', { items }), 3n);
    assert.equal(run('self.items.indexOf(1)', { items }), 1n);
    assert.equal(run('self.items.lastIndexOf(1)', { items }), 3n);
    assert.deepEqual(run('self.items.max()', { items: [] }), { error: 'max(list) called on empty list' });
  });

  void it('strings: charAt, indexOf, lowerAscii, replace, split, substring, trim, upperAscii, join, format, quote', () => {
    assert.equal(run("'hello'.charAt(1)"), 'e');
    assert.equal(run("'hello'.indexOf('l')"), 2n);
    assert.equal(run("'HeLLo'.lowerAscii()"), 'hello');
    assert.equal(run("'a-b-c'.replace('-', '+')"), 'a+b+c');
    assert.equal(run("'a-b-c'.replace('-', '+', 1)"), 'a+b-c');
    assert.deepEqual(run("'a,b,c'.split(',')"), ['a', 'b', 'c']);
    assert.equal(run("'hello'.substring(1, 3)"), 'el');
    assert.equal(run("'  x '.trim()"), 'x');
    assert.equal(run("'x'.upperAscii()"), 'X');
    assert.equal(run("['a', 'b'].join('/')"), 'a/b');
    assert.equal(run("'%d items'.format([3])"), '3 items');
    assert.equal(run("'%s!'.format(['list'])"), 'list!');
    assert.equal(run("'%.2f'.format([1.5])"), '1.50');
    assert.equal(run('strings.quote(\'a"b\')'), '"a\\"b"');
  });

  void it('regex: matches, find, findAll', () => {
    assert.equal(run("'abc123'.matches('^[a-z]+[0-9]+$')"), true);
    assert.equal(run("'abc123'.find('[0-9]+')"), '123');
    assert.equal(run("'abc'.find('[0-9]+')"), '');
    assert.deepEqual(run("'a1b22c333'.findAll('[0-9]+')"), ['1', '22', '333']);
    assert.deepEqual(run("'a1b22c333'.findAll('[0-9]+', 2)"), ['1', '22']);
    assert.deepEqual(run("'abc'.matches('[')"), { compileError: "ERROR: <input>:1:15: invalid matches argument\n | 'abc'.matches('[')\n | ..............^" });
  });

  void it('urls', () => {
    assert.equal(run("url('https://example.com:8080/a/b?x=1&x=2').getHost()"), 'example.com:8080');
    assert.equal(run("url('https://example.com:8080/a/b').getHostname()"), 'example.com');
    assert.equal(run("url('https://example.com:8080/a/b').getPort()"), '8080');
    assert.equal(run("url('https://example.com/a/b').getScheme()"), 'https');
    assert.equal(run("url('https://example.com/a/b').getEscapedPath()"), '/a/b');
    assert.deepEqual(run("url('https://example.com/?x=1&x=2').getQuery()['x']"), ['1', '2']);
    assert.equal(run("isURL('not a url')"), false);
    assert.equal(run("url('https://[::1]:80/').getHostname()"), '::1');
  });

  void it('quantity', () => {
    assert.equal(run("quantity('1Gi').isGreaterThan(quantity('1G'))"), true);
    assert.equal(run("quantity('500m').isInteger()"), false);
    assert.equal(run("quantity('2k').asInteger()"), 2000n);
    assert.equal(run("quantity('1.5').asApproximateFloat()"), 1.5);
    assert.equal(run("quantity('1').add(quantity('500m')).compareTo(quantity('1500m'))"), 0n);
    assert.equal(run("quantity('1').sub(1).sign()"), 0n);
    assert.equal(run("quantity('1000m') == quantity('1')"), true);
    assert.equal(run("isQuantity('1Gi')"), true);
    assert.equal(run("isQuantity('1Gb')"), false);
    assert.deepEqual(run("quantity('x')"), { error: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" });
  });

  void it('IP and CIDR', () => {
    assert.equal(run("isIP('10.0.0.1')"), true);
    assert.equal(run("isIP('010.0.0.1')"), false);
    assert.equal(run("isIP('::ffff:1.2.3.4')"), false);
    assert.equal(run("ip('2001:db8::1').family()"), 6n);
    assert.equal(run("ip.isCanonical('2001:db8:0:0:0:0:0:1')"), false);
    assert.equal(run("ip.isCanonical('2001:db8::1')"), true);
    assert.equal(run("ip('127.0.0.1').isLoopback()"), true);
    assert.equal(run("ip('169.254.1.1').isLinkLocalUnicast()"), true);
    assert.equal(run("cidr('10.0.0.0/8').containsIP('10.1.2.3')"), true);
    assert.equal(run("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')"), true);
    assert.equal(run("cidr('10.0.0.0/8').containsCIDR('11.0.0.0/16')"), false);
    assert.equal(run("string(cidr('10.1.2.3/8').masked())"), '10.0.0.0/8');
    assert.equal(run("cidr('10.1.2.3/8').prefixLength()"), 8n);
    assert.equal(run("string(cidr('10.1.2.3/8').ip())"), '10.1.2.3');
  });

  void it('format', () => {
    assert.equal(run("format.dns1123Label().validate('ok-name').hasValue()"), false);
    assert.equal(run("format.dns1123Label().validate('Not_OK').hasValue()"), true);
    assert.equal(run("format.named('dns1123Subdomain').hasValue()"), true);
    assert.equal(run("format.named('nope').hasValue()"), false);
  });

  void it('sets', () => {
    assert.equal(run('sets.contains([1, 2, 3], [1, 3])'), true);
    assert.equal(run('sets.equivalent([1, 2], [2, 1, 1])'), true);
    assert.equal(run('sets.intersects([1, 2], [3])'), false);
  });

  void it('optional types', () => {
    assert.equal(run("self.?s.orValue('none')", {}), 'none');
    assert.equal(run("self.?s.orValue('none')", { s: 'x' }), 'x');
    assert.equal(run('optional.of(1).hasValue()'), true);
  });

  void it('refuses what kube 1.32 does not declare, with its messages', () => {
    assert.match(String((run('cel.bind(x, 1, x == 1)') as { compileError: string }).compileError), /^ERROR: <input>:1:1: undeclared reference to 'cel' \(in container ''\)/);
    assert.match(String((run('math.greatest(1, 2) == 2') as { compileError: string }).compileError), /undeclared reference to 'math'/);
  });
});
