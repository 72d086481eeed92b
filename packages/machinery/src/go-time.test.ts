import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goTimeParseError, goTimeQuote } from './go-time.js';

/**
 * [input, Go's error for metav1.Time (RFC 3339), Go's error for metav1.MicroTime] —
 * recorded from Go's time.Parse through metav1's UnmarshalJSON (apimachinery v0.32.13);
 * undefined = accepted. A random corpus of 40,000 mutations of valid timestamps agreed too.
 */
const VECTORS: readonly (readonly [string, string | undefined, string | undefined])[] = [
    ["2024-01-02T03:04:05Z", undefined, "parsing time \"2024-01-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""],
    ["2024-01-02T03:04:05.123Z", undefined, "parsing time \"2024-01-02T03:04:05.123Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".123Z\" as \".000000\""],
    ["2024-01-02T03:04:05,123Z", undefined, "parsing time \"2024-01-02T03:04:05,123Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \",123Z\" as \".000000\""],
    ["2024-01-02T3:04:05Z", undefined, "parsing time \"2024-01-02T3:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""],
    ["2024-01-02T03:04:05.123456Z", undefined, undefined],
    ["2024-01-02T03:04:05.1234567891234Z", undefined, "parsing time \"2024-01-02T03:04:05.1234567891234Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7891234Z\" as \"Z07:00\""],
    ["2024-01-02T03:04:05+01:00", undefined, "parsing time \"2024-01-02T03:04:05+01:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+01:00\" as \".000000\""],
    ["2024-01-02T03:04:05+24:00", undefined, "parsing time \"2024-01-02T03:04:05+24:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+24:00\" as \".000000\""],
    ["2024-01-02T03:04:05+01:60", undefined, "parsing time \"2024-01-02T03:04:05+01:60\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+01:60\" as \".000000\""],
    ["2024-01-02T03:04:05-00:00", undefined, "parsing time \"2024-01-02T03:04:05-00:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"-00:00\" as \".000000\""],
    ["2024-02-29T00:00:00Z", undefined, "parsing time \"2024-02-29T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""],
    ["0000-02-29T00:00:00Z", undefined, "parsing time \"0000-02-29T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""],
    ["9999-12-31T23:59:59Z", undefined, "parsing time \"9999-12-31T23:59:59Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""],
    ["yesterday", "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\"", "parsing time \"yesterday\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"yesterday\" as \"2006\""],
    ["", "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\"", "parsing time \"\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \"2006\""],
    ["2024", "parsing time \"2024\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"-\"", "parsing time \"2024\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \"-\""],
    ["2024-01-02T03:04:05", "parsing time \"2024-01-02T03:04:05\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\"", "parsing time \"2024-01-02T03:04:05\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \".000000\""],
    ["2024-01-02 03:04:05Z", "parsing time \"2024-01-02 03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 03:04:05Z\" as \"T\"", "parsing time \"2024-01-02 03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \" 03:04:05Z\" as \"T\""],
    ["2024-01-02t03:04:05Z", "parsing time \"2024-01-02t03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"t03:04:05Z\" as \"T\"", "parsing time \"2024-01-02t03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"t03:04:05Z\" as \"T\""],
    ["2024-01-02T03:04:05z", "parsing time \"2024-01-02T03:04:05z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"z\" as \"Z07:00\"", "parsing time \"2024-01-02T03:04:05z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"z\" as \".000000\""],
    ["2024-01-02T03:04:05+0100", "parsing time \"2024-01-02T03:04:05+0100\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+0100\" as \"Z07:00\"", "parsing time \"2024-01-02T03:04:05+0100\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+0100\" as \".000000\""],
    ["2024-01-02T03:04:05+01:00:00", "parsing time \"2024-01-02T03:04:05+01:00:00\": extra text: \":00\"", "parsing time \"2024-01-02T03:04:05+01:00:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+01:00:00\" as \".000000\""],
    ["2024-01-02T03:04:05Zjunk", "parsing time \"2024-01-02T03:04:05Zjunk\": extra text: \"junk\"", "parsing time \"2024-01-02T03:04:05Zjunk\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Zjunk\" as \".000000\""],
    ["24-01-02T03:04:05Z", "parsing time \"24-01-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"24-01-02T03:04:05Z\" as \"2006\"", "parsing time \"24-01-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"24-01-02T03:04:05Z\" as \"2006\""],
    ["2024-1-02T03:04:05Z", "parsing time \"2024-1-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"1-02T03:04:05Z\" as \"01\"", "parsing time \"2024-1-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"1-02T03:04:05Z\" as \"01\""],
    ["2024-01-2T03:04:05Z", "parsing time \"2024-01-2T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"2T03:04:05Z\" as \"02\"", "parsing time \"2024-01-2T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"2T03:04:05Z\" as \"02\""],
    ["2024-01-02T03:4:05Z", "parsing time \"2024-01-02T03:4:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"4:05Z\" as \"04\"", "parsing time \"2024-01-02T03:4:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"4:05Z\" as \"04\""],
    ["2024-01-02T03:04:5Z", "parsing time \"2024-01-02T03:04:5Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"5Z\" as \"05\"", "parsing time \"2024-01-02T03:04:5Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"5Z\" as \"05\""],
    ["2024-01-02T03:04:05.Z", "parsing time \"2024-01-02T03:04:05.Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".Z\" as \"Z07:00\"", "parsing time \"2024-01-02T03:04:05.Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".Z\" as \".000000\""],
    ["+2024-01-02T03:04:05Z", "parsing time \"+2024-01-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+2024-01-02T03:04:05Z\" as \"2006\"", "parsing time \"+2024-01-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+2024-01-02T03:04:05Z\" as \"2006\""],
    ["2024-13-02T03:04:05Z", "parsing time \"2024-13-02T03:04:05Z\": month out of range", "parsing time \"2024-13-02T03:04:05Z\": month out of range"],
    ["2024-00-02T03:04:05Z", "parsing time \"2024-00-02T03:04:05Z\": month out of range", "parsing time \"2024-00-02T03:04:05Z\": month out of range"],
    ["2023-02-29T03:04:05Z", "parsing time \"2023-02-29T03:04:05Z\": day out of range", "parsing time \"2023-02-29T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""],
    ["2024-04-31T03:04:05Z", "parsing time \"2024-04-31T03:04:05Z\": day out of range", "parsing time \"2024-04-31T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""],
    ["2024-01-02T24:04:05Z", "parsing time \"2024-01-02T24:04:05Z\": hour out of range", "parsing time \"2024-01-02T24:04:05Z\": hour out of range"],
    ["2024-01-02T03:60:05Z", "parsing time \"2024-01-02T03:60:05Z\": minute out of range", "parsing time \"2024-01-02T03:60:05Z\": minute out of range"],
    ["2024-01-02T03:04:60Z", "parsing time \"2024-01-02T03:04:60Z\": second out of range", "parsing time \"2024-01-02T03:04:60Z\": second out of range"],
    ["2024-01-02T03:04:05+25:00", "parsing time \"2024-01-02T03:04:05+25:00\": time zone offset hour out of range", "parsing time \"2024-01-02T03:04:05+25:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+25:00\" as \".000000\""],
    ["2024-01-02T03:04:05+01:61", "parsing time \"2024-01-02T03:04:05+01:61\": time zone offset minute out of range", "parsing time \"2024-01-02T03:04:05+01:61\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+01:61\" as \".000000\""],
    ["2024-01-02T03:04:05x01:00", "parsing time \"2024-01-02T03:04:05x01:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x01:00\" as \"Z07:00\"", "parsing time \"2024-01-02T03:04:05x01:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"x01:00\" as \".000000\""],
    ["été", "parsing time \"\\xc3\\xa9t\\xc3\\xa9\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\xc3\\xa9t\\xc3\\xa9\" as \"2006\"", "parsing time \"\\xc3\\xa9t\\xc3\\xa9\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\\xc3\\xa9t\\xc3\\xa9\" as \"2006\""],
    ["a\"b\\c", "parsing time \"a\\\"b\\\\c\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"a\\\"b\\\\c\" as \"2006\"", "parsing time \"a\\\"b\\\\c\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"a\\\"b\\\\c\" as \"2006\""],
    ["2024-01-02T03:04:05.12345Z", undefined, "parsing time \"2024-01-02T03:04:05.12345Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".12345Z\" as \".000000\""],
    ["2024-01-02T03:04:05.1234567Z", undefined, "parsing time \"2024-01-02T03:04:05.1234567Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7Z\" as \"Z07:00\""],
    ["2024-01-02T03:04:05,123456Z", undefined, undefined],
    ["2024-01-02T03:04:05.+12345Z", "parsing time \"2024-01-02T03:04:05.+12345Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".+12345Z\" as \"Z07:00\"", undefined],
    ["2024-01-02T03:04:05.-12345Z", "parsing time \"2024-01-02T03:04:05.-12345Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".-12345Z\" as \"Z07:00\"", "parsing time \"2024-01-02T03:04:05.-12345Z\": fractional second out of range"],
    ["2024-01-02T03:04:05.-00000Z", "parsing time \"2024-01-02T03:04:05.-00000Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".-00000Z\" as \"Z07:00\"", undefined],
    ["2024-01-02T03:04:05.123456+01:00", undefined, undefined],
    ["2023-02-29T03:04:05.123456Z", "parsing time \"2023-02-29T03:04:05.123456Z\": day out of range", "parsing time \"2023-02-29T03:04:05.123456Z\": day out of range"],
    ["2024-01-02T3:04:05.123456Z", undefined, undefined],
];

void describe('goTimeParseError (Go time.Parse for metav1.Time and MicroTime)', () => {
  void it('accepts and refuses what Go does, with its messages', () => {
    for (const [input, time, microTime] of VECTORS) {
      assert.equal(goTimeParseError(input, 'RFC3339'), time, `Time ${JSON.stringify(input)}`);
      assert.equal(goTimeParseError(input, 'RFC3339Micro'), microTime, `MicroTime ${JSON.stringify(input)}`);
    }
  });

  void it('quotes as Go time does: non-ASCII and control bytes as \\x, quotes and backslashes escaped', () => {
    assert.equal(goTimeQuote('é\t"\\'), '"\\xc3\\xa9\\x09\\"\\\\"');
  });

  void it('quotes a megabyte of 4-byte UTF-8 (a value in a refused body) byte by byte', () => {
    const emoji = '😀'.repeat(250_000);
    const quoted = `"${'\\xf0\\x9f\\x98\\x80'.repeat(250_000)}"`;
    assert.equal(goTimeQuote(`${emoji}\x7f~\ud800`), `${quoted.slice(0, -1)}\x7f~\\xef\\xbf\\xbd"`);
    assert.equal(goTimeParseError(emoji, 'RFC3339Micro'), `parsing time ${quoted} as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${quoted} as "2006"`);
    assert.equal(goTimeParseError(`2024-01-01T00:00:00Z${emoji}`, 'RFC3339'), `parsing time "2024-01-01T00:00:00Z${quoted.slice(1)}: extra text: ${quoted}`);
  });
});
