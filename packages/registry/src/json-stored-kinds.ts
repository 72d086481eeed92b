/**
 * The kinds kube-apiserver 1.32 writes to etcd as JSON whatever `--storage-media-type` says:
 * its API extensions server stores CustomResourceDefinitions as apiextensions.k8s.io/v1beta1
 * and its aggregator stores APIServices as apiregistration.k8s.io/v1, each with its own JSON
 * codec. kapi writes the same bytes (see @kapi/storage's kubeStorageCodec).
 */
import { deepCopy } from '@kapi/machinery';
import type { JsonStoredKinds } from '@kapi/storage';
import { crdFromV1beta1, crdToV1beta1 } from './apiextensions/crd-v1beta1.js';

export const JSON_STORED_KINDS: JsonStoredKinds = new Map([
  ['apiextensions.k8s.io/v1/CustomResourceDefinition', (obj, goOrdered) => crdToV1beta1(goOrdered(obj))],
  ['apiextensions.k8s.io/v1beta1/CustomResourceDefinition', (obj, goOrdered) => crdToV1beta1(goOrdered({ ...crdFromV1beta1(deepCopy(obj)), apiVersion: 'apiextensions.k8s.io/v1' }))],
  ['apiregistration.k8s.io/v1/APIService', (obj, goOrdered) => goOrdered(obj)],
]);
