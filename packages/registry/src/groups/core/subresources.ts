/** The core group's subresources with roles of their own, and the `bindings` resource's create. */
import type { Creater } from '../../rest.js';
import type { ResourceLookup, SubresourceFactories } from '../../subresource-store.js';
import { bindingSubresource, bindingsCreater } from './pods/binding.js';
import { evictionSubresource } from './pods/eviction.js';
import { nodeProxySubresource, podStreamSubresource } from './connect/kubelet.js';
import { podProxySubresource, serviceProxySubresource } from './connect/proxy.js';

export const coreSubresources: Readonly<Record<string, SubresourceFactories>> = {
  pods: {
    binding: bindingSubresource,
    eviction: evictionSubresource,
    log: podStreamSubresource('log'),
    exec: podStreamSubresource('exec'),
    attach: podStreamSubresource('attach'),
    portforward: podStreamSubresource('portforward'),
    proxy: podProxySubresource,
  },
  nodes: { proxy: nodeProxySubresource },
  services: { proxy: serviceProxySubresource },
};

export const coreResourceCreaters: Readonly<Record<string, (lookup: ResourceLookup) => Creater>> = {
  bindings: bindingsCreater,
};
