#!/usr/bin/env node
// The package's bin: committed so that `npm ci` links it into node_modules/.bin before anything
// is built (npm skips a workspace bin whose file does not exist yet). The program is
// dist/bundled.js: the bundled server with its code cache, or dist/bin.js without a bundle
// (`make build` makes both).
import '../dist/bundled.js';
