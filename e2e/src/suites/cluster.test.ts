/**
 * The client e2e suites (kubectl, client-node, client-go, Python) against the local HA cluster
 * of `make cluster` (three etcd members, three replicas) through kapi-lb; one cluster start
 * shared by every suite.
 */
import { defineClientSuites } from './define.js';

defineClientSuites('cluster');
