/** The client e2e suites (kubectl, client-node, client-go, Python) against one kapi-apiserver. */
import { defineClientSuites } from './define.js';

defineClientSuites('single');
