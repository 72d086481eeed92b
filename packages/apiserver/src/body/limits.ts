/**
 * Every limit on a request body, declared once. The values are kube-apiserver's unless a
 * comment says kapi stops earlier, and why; the README lists them.
 */

/** kube's MaxRequestBodyBytes: past it, 413 `Request entity too large: limit is 3145728`. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * How deep objects and arrays may nest in a JSON or YAML body. kube stops at 10000 (Go's
 * encoding/json and go-yaml); kapi at 1000, because the registry's recursive walks (and V8's
 * structuredClone) overflow the stack at about 2000 levels. No real object comes close.
 */
export const MAX_NESTING_DEPTH = 1000;

/** kube's maxJSONPatchOperations: more operations in one JSON patch is a 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * go-yaml's alias-expansion rule (CVE-2019-11253), which kube inherits: once more than
 * `minAliases` of more than `minDecodes` decoded nodes come from expanding aliases, the share
 * of alias-driven nodes may be at most 99% up to `rangeLow` nodes, falling linearly to 10% at
 * `rangeHigh`. Past it: `yaml: document contains excessive aliasing`.
 */
export const YAML_ALIAS_RATIO = { minAliases: 100, minDecodes: 1000, rangeLow: 400_000, rangeHigh: 4_000_000 } as const;

/**
 * kapi's own: aliases may add at most this many bytes (as JSON) to a decoded YAML body. go-yaml
 * counts nodes, so an alias of a long string costs it one node however long the string is
 * (and kube then runs out of memory writing the JSON); kapi counts bytes as well.
 */
export const MAX_YAML_ALIAS_EXPANSION_BYTES = MAX_REQUEST_BODY_BYTES;

/**
 * kapi's own: YAML is decoded on worker threads so that no body holds the event loop. Each
 * decode gets `timeoutMs` of a thread and a heap of `maxHeapMb`; a worker past either is
 * ended and the request gets 413. `threads` decodes run at once; others wait their turn.
 */
export const YAML_DECODER_LIMITS = { threads: 2, timeoutMs: 5000, maxHeapMb: 256, stackMb: 8 } as const;

/**
 * kapi's own: the duplicate keys of a YAML body are listed line by line (as go-yaml's strict
 * decoder does) for bodies up to this size; a larger body reports its first duplicate only.
 */
export const YAML_DUPLICATE_LINES_MAX_BYTES = 256 * 1024;
