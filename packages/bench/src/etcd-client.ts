import { Etcd3 } from 'etcd3';

/**
 * The raw-etcd baselines, over gRPC with the etcd3 client (one channel; requests multiplex on
 * it as kapi's own storage layer does). Errors from etcd propagate unchanged; the client's
 * default retry policy applies.
 */
export class EtcdBaseline {
  private readonly client: Etcd3;

  constructor(endpoints: string[]) {
    this.client = new Etcd3({ hosts: endpoints });
  }

  /** A plain put. */
  async put(key: string, value: string): Promise<void> {
    await this.client.put(key).value(value).exec();
  }

  /** Puts every entry in one transaction, at one revision (etcd allows 128 operations per txn by default). */
  async putMany(entries: readonly (readonly [key: string, value: string])[]): Promise<void> {
    await this.client.kv.txn({ success: entries.map(([key, value]) => ({ request_put: { key: Buffer.from(key), value: Buffer.from(value) } })) });
  }

  /** What kapi's create does: txn "if mod_revision(key) == 0 then put"; throws if the key existed. */
  async createTxn(key: string, value: string): Promise<void> {
    const result = await this.client.if(key, 'Mod', '==', 0).then(this.client.put(key).value(value)).commit();
    if (!result.succeeded) throw new Error(`key exists: ${key}`);
  }

  /** A linearizable get; throws if the key is missing. */
  async get(key: string): Promise<void> {
    const value = await this.client.get(key).buffer();
    if (value === null) throw new Error(`key missing: ${key}`);
  }

  /** Bytes of the value stored at `key`, or undefined when there is none. */
  async storedBytes(key: string): Promise<number | undefined> {
    const value = await this.client.get(key).buffer();
    return value === null ? undefined : value.length;
  }

  /** The value of `key` as a string, or null. */
  getString(key: string): Promise<string | null> {
    return this.client.get(key).string();
  }

  /** Deletes every key under `prefix` and compacts history up to now, so runs don't pile up data. */
  async deletePrefixAndCompact(prefix: string): Promise<void> {
    const res = await this.client.delete().prefix(prefix).exec();
    await this.client.kv.compact({ revision: res.header.revision, physical: true });
  }

  close(): void {
    this.client.close();
  }
}
