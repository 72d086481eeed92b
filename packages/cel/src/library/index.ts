/** kube 1.32's CEL extension libraries, installed into the base environment in this order. */
import { registerLibrary } from '../environment.js';
import { installAuthz } from './authz.js';
import { installFormat } from './format.js';
import { installIP } from './ip.js';
import { installLists } from './lists.js';
import { installQuantity } from './quantity.js';
import { installRegex } from './regex.js';
import { installSets } from './sets.js';
import { installStrings } from './strings.js';
import { installURLs } from './urls.js';

for (const install of [installLists, installStrings, installRegex, installURLs, installQuantity, installSets, installIP, installFormat, installAuthz]) {
  registerLibrary(install);
}
