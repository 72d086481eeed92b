#!/usr/bin/env node
// The package's bin: committed so that `npm ci` links it into node_modules/.bin before anything
// is built (npm skips a workspace bin whose file does not exist yet). The program is dist/bin.js
// (`make build`).
import '../dist/bin.js';
