/** pprof profiles (profile.proto): the model, its writer and its reader. */
export type { PprofFrame, PprofSample, PprofProfile } from './profile.js';
export { emptyPprof, pprofDelta } from './profile.js';
export { encodePprof, encodePprofProto } from './encode.js';
export { decodePprof } from './decode.js';
