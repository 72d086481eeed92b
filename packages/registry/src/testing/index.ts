export { clusterScope, inNamespace, rejectsWithStatus, resource, startCachedRegistry, startFixture, type CachedRegistry, type Fixture } from './registry-fixture.js';
