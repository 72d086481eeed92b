/** The OpenAPI v3 parameter objects kube puts on resource operations (all inline). */

export type Parameter = Record<string, unknown>;

function query(name: string, description: string, schema: Record<string, unknown>): Parameter {
  return { name, in: 'query', description, schema };
}

export const pathName: Parameter = { name: 'name', in: 'path', description: 'name of the resource', required: true, schema: { type: 'string', uniqueItems: true } };
export const pathNamespace: Parameter = { name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', required: true, schema: { type: 'string', uniqueItems: true } };
export const pretty = query('pretty', "If 'true', then the output is pretty printed.", { type: 'string', uniqueItems: true });
export const dryRun = query('dryRun', 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed', { type: 'string', uniqueItems: true });
export const fieldManager = query('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.', { type: 'string', uniqueItems: true });
export const fieldValidation = query(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default. - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.',
  { type: 'string', uniqueItems: true },
);
export const force = query(
  'force',
  'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
  { type: 'boolean', uniqueItems: true },
);
export const gracePeriodSeconds = query('gracePeriodSeconds', 'The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately.', { type: 'integer', uniqueItems: true });
export const propagationPolicy = query('propagationPolicy', "Whether and how garbage collection will be performed. Acceptable values are: 'Orphan', 'Background', 'Foreground'.", { type: 'string', uniqueItems: true });
export const orphanDependents = query('orphanDependents', 'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned.', { type: 'boolean', uniqueItems: true });

export const listParameters: Parameter[] = [
  query('allowWatchBookmarks', 'allowWatchBookmarks requests watch events with type "BOOKMARK".', { type: 'boolean', uniqueItems: true }),
  query('continue', 'The continue option should be set when retrieving more results from the server.', { type: 'string', uniqueItems: true }),
  query('fieldSelector', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.', { type: 'string', uniqueItems: true }),
  query('labelSelector', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.', { type: 'string', uniqueItems: true }),
  query('limit', 'limit is a maximum number of responses to return for a list call.', { type: 'integer', uniqueItems: true }),
  query('resourceVersion', 'resourceVersion sets a constraint on what resource versions a request may be served from.', { type: 'string', uniqueItems: true }),
  query('resourceVersionMatch', 'resourceVersionMatch determines how resourceVersion is applied to list calls.', { type: 'string', uniqueItems: true }),
  query('sendInitialEvents', '`sendInitialEvents=true` may be set together with `watch=true`.', { type: 'boolean', uniqueItems: true }),
  query('timeoutSeconds', 'Timeout for the list/watch call.', { type: 'integer', uniqueItems: true }),
  query('watch', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.', { type: 'boolean', uniqueItems: true }),
];

/** The AllowUnsafeMalformedObjectDeletion delete option: kube advertises it on every delete, gate on or off. */
export const ignoreStoreReadError = query(
  'ignoreStoreReadErrorWithClusterBreakingPotential',
  'if set to true, it will trigger an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error (only with the AllowUnsafeMalformedObjectDeletion feature gate).',
  { type: 'boolean', uniqueItems: true },
);

/** The one list parameter a custom resource's get takes (kube's custom-resource OpenAPI builder). */
export const resourceVersion = listParameters.find((x) => x['name'] === 'resourceVersion')!;

const text = (name: string, description: string) => query(name, description, { type: 'string', uniqueItems: true });
const flag = (name: string, description: string) => query(name, description, { type: 'boolean', uniqueItems: true });
const integer = (name: string, description: string) => query(name, description, { type: 'integer', uniqueItems: true });
const streams = [
  text('container', 'The container to attach to or run in; defaults to the only container of a one-container pod.'),
  flag('stderr', 'Stream the standard error of the container.'),
  flag('stdin', 'Stream standard input to the container.'),
  flag('stdout', 'Stream the standard output of the container.'),
  flag('tty', 'Allocate a terminal (stderr is then merged into stdout).'),
];
const proxyPath = text('path', 'The path to send the request to on the proxied target.');

/**
 * The query parameters of a connect subresource, from the fields of its options kind (kube
 * builds them from the Go struct), sorted by name; `PodLogOptions` for pods/log.
 */
export const connectParameters: Readonly<Record<string, readonly Parameter[]>> = {
  PodAttachOptions: streams,
  PodExecOptions: [text('command', 'The command to run, one argument per parameter; not run in a shell.'), ...streams],
  PodPortForwardOptions: [integer('ports', 'The pod ports to forward to.')],
  PodProxyOptions: [proxyPath],
  ServiceProxyOptions: [proxyPath],
  NodeProxyOptions: [proxyPath],
  PodLogOptions: [
    text('container', 'The container whose log to read; defaults to the only container of a one-container pod.'),
    flag('follow', 'Keep streaming the log as it grows.'),
    flag('insecureSkipTLSVerifyBackend', "Do not verify the kubelet's serving certificate."),
    integer('limitBytes', 'Stop after this many bytes of log.'),
    flag('previous', 'Read the log of the previous, terminated instance of the container.'),
    integer('sinceSeconds', 'Only lines newer than this many seconds.'),
    text('stream', 'Which stream to read: All, Stdout or Stderr.'),
    integer('tailLines', 'Only this many lines from the end of the log.'),
    flag('timestamps', 'Prefix every line with its RFC 3339 timestamp.'),
  ],
};

/** The path parameter of a proxy's `{path}` route. */
export const pathPath: Parameter = { name: 'path', in: 'path', description: 'path to the resource', required: true, schema: { type: 'string', uniqueItems: true } };
