/** The protobufjs descriptor of every catalogue message (`make proto`: pbjs -t json over generated/proto). */
import { once, readGenerated } from './generated-file.js';

const descriptor = once(() => readGenerated<Record<string, unknown>>('protobuf.json'));

/** The descriptor (protobufjs `Root.fromJSON` input). Shared: never mutate it. */
export function protobufDescriptor(): Readonly<Record<string, unknown>> {
  return descriptor();
}
