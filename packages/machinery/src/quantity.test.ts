import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { QUANTITY_FORMAT_ERROR, QUANTITY_NUMERIC_ERROR, QUANTITY_SUFFIX_ERROR, quantityParseError } from './quantity.js';

/**
 * [input, resource.ParseQuantity's error] recorded from apimachinery v0.32.13; undefined =
 * accepted. A random corpus of 60,000 mutations agreed too.
 */
const VECTORS: readonly (readonly [string, string | undefined])[] = [
    ["0", undefined],
    ["1", undefined],
    ["-1", undefined],
    ["+1", undefined],
    ["1.5", undefined],
    [".5", undefined],
    ["1.", undefined],
    [".", undefined],
    ["+", undefined],
    ["-", undefined],
    ["+k", undefined],
    ["00", undefined],
    ["100m", undefined],
    ["1Gi", undefined],
    ["1.5Gi", undefined],
    ["8Ei", undefined],
    ["Ki", undefined],
    ["Ti", undefined],
    ["Pi", "unable to parse numeric part of quantity"],
    ["Ei", "unable to parse numeric part of quantity"],
    ["0Pi", undefined],
    ["-.5Ki", undefined],
    ["1e3", undefined],
    ["1E3", undefined],
    ["1e-3", undefined],
    ["1e+3", undefined],
    ["1E", undefined],
    ["1e", "unable to parse quantity's suffix"],
    ["1ee3", "unable to parse quantity's suffix"],
    ["1e+", "unable to parse quantity's suffix"],
    ["1e9223372036854775808", "unable to parse quantity's suffix"],
    ["e-10", "unable to parse numeric part of quantity"],
    [".e-10", "unable to parse numeric part of quantity"],
    ["1e-10", undefined],
    ["123456789012345678901234567890", undefined],
    ["12345678901234567890m", undefined],
    [" 1", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["1 ", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["x", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["1x", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["1.2.3", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["1Ki5", "unable to parse quantity's suffix"],
    ["1m-3", "unable to parse quantity's suffix"],
    ["1Mi", undefined],
    ["5n", undefined],
    ["5u", undefined],
    ["2k", undefined],
    ["3M", undefined],
    ["4G", undefined],
    ["5T", undefined],
    ["6P", undefined],
    ["7E", undefined],
    ["1.5.Gi", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["--1", "unable to parse quantity's suffix"],
    ["1.5e3Mi", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["infinity", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
];

void describe('quantityParseError (resource.ParseQuantity)', () => {
  void it('accepts and refuses exactly what ParseQuantity does, with its errors', () => {
    for (const [input, error] of VECTORS) assert.equal(quantityParseError(input), error, JSON.stringify(input));
  });

  void it('has kube\'s three error texts', () => {
    assert.equal(QUANTITY_FORMAT_ERROR, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    assert.equal(QUANTITY_NUMERIC_ERROR, 'unable to parse numeric part of quantity');
    assert.equal(QUANTITY_SUFFIX_ERROR, "unable to parse quantity's suffix");
  });

  void it('answers at once for exponents whose arbitrary-precision path is slow in Go', () => {
    const started = Date.now();
    assert.equal(quantityParseError('1e-2147483648'), undefined);
    assert.ok(Date.now() - started < 500);
  });
});
