/** The key rule shared by ConfigMap and Secret data (kube's IsConfigMapKey), with kube's texts. */
import { DNS1123_SUBDOMAIN_MAX_LENGTH, byteLength, maxLenError, regexError } from '@kapi/machinery';

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configKey = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** Returns why `key` is not a valid ConfigMap/Secret key (empty when valid). */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (byteLength(key) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configKey.test(key)) errs.push(regexError(CONFIG_KEY_ERR, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** The largest ConfigMap or Secret payload kube accepts (1 MiB). */
export const MAX_SECRET_SIZE = 1024 * 1024;
