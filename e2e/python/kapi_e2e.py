#!/usr/bin/python3
"""The Python `kubernetes` client (Debian's python3-kubernetes, 22.6) against kapi.

    /usr/bin/python3 e2e/python/kapi_e2e.py --kubeconfig K --namespace N

CRUD of ConfigMaps (create, get, list by label, replace with and without a stale
resourceVersion, strategic-merge and JSON patch, delete with preconditions, NotFound), list
paging with `limit`/`_continue`, and watches: from a list's resourceVersion (ADDED, MODIFIED,
DELETED in order), resumed from the last event's resourceVersion (nothing repeated), with
bookmarks allowed, and the expired-resourceVersion error this client turns into an exception.

One JSON line per step on stdout: {"step": name, "ok": true|false, ...}; the last line is
{"done": true, "steps": n, "failed": m}. Exit status 0 when every step passed. Driven by
e2e/src/suites/python.ts, which checks the steps and their values.
"""

import argparse
import json
import sys
import traceback

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

RESULTS = {"steps": 0, "failed": 0}


def emit(line):
    sys.stdout.write(json.dumps(line, sort_keys=True) + "\n")
    sys.stdout.flush()


def step(name):
    """Runs the decorated function at once as one step; its dict return value is reported."""

    def run(fn):
        RESULTS["steps"] += 1
        try:
            details = fn() or {}
            emit(dict(details, step=name, ok=True))
        except Exception as err:  # every failure is reported, the next step still runs
            RESULTS["failed"] += 1
            emit({"step": name, "ok": False, "error": "%s: %s" % (type(err).__name__, err), "trace": traceback.format_exc()[-2000:]})
        return fn

    return run


def expect(cond, message):
    if not cond:
        raise AssertionError(message)


def api_error(fn):
    """Calls fn, which must fail with an ApiException; returns (status, parsed Status body)."""
    try:
        fn()
    except ApiException as err:
        body = json.loads(err.body) if err.body else {}
        return err.status, body
    raise AssertionError("expected an ApiException")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--namespace", required=True)
    args = parser.parse_args()
    ns = args.namespace

    config.load_kube_config(config_file=args.kubeconfig)
    v1 = client.CoreV1Api()
    emit({"client": "kubernetes-python", "version": __import__("kubernetes").__version__})
    state = {}

    @step("namespace create")
    def _():
        try:
            created = v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
            return {"phase": created.status.phase}
        except ApiException as err:
            expect(err.status == 409, "create namespace: %s" % err)
            return {"phase": v1.read_namespace(ns).status.phase}

    @step("configmap create")
    def _():
        body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-a", labels={"via": "python"}), data={"k": "v"})
        created = v1.create_namespaced_config_map(ns, body)
        state["created"] = created
        expect(created.metadata.namespace == ns, "namespace %r" % created.metadata.namespace)
        expect(created.metadata.resource_version.isdigit(), "resourceVersion %r" % created.metadata.resource_version)
        expect(created.metadata.creation_timestamp is not None, "no creationTimestamp")
        return {"name": created.metadata.name, "uid": created.metadata.uid, "resourceVersion": created.metadata.resource_version, "data": created.data}

    @step("configmap get")
    def _():
        got = v1.read_namespaced_config_map("py-a", ns)
        expect(got.metadata.uid == state["created"].metadata.uid, "uid differs")
        expect(got.metadata.resource_version == state["created"].metadata.resource_version, "resourceVersion differs")
        return {"data": got.data, "labels": got.metadata.labels}

    @step("configmap list by label")
    def _():
        listed = v1.list_namespaced_config_map(ns, label_selector="via=python")
        expect(listed.metadata.resource_version.isdigit(), "list resourceVersion %r" % listed.metadata.resource_version)
        return {"names": [i.metadata.name for i in listed.items], "kind": listed.kind}

    @step("configmap replace, then a stale replace conflicts")
    def _():
        current = v1.read_namespaced_config_map("py-a", ns)
        stale_rv = current.metadata.resource_version
        current.data = {"k": "v2"}
        replaced = v1.replace_namespaced_config_map("py-a", ns, current)
        expect(int(replaced.metadata.resource_version) > int(stale_rv), "resourceVersion did not grow")
        current.metadata.resource_version = stale_rv
        current.data = {"k": "lost"}
        status, body = api_error(lambda: v1.replace_namespaced_config_map("py-a", ns, current))
        return {"data": replaced.data, "conflictStatus": status, "conflictReason": body.get("reason"), "conflictMessage": body.get("message")}

    @step("configmap strategic-merge patch (dict) and JSON patch (list)")
    def _():
        merged = v1.patch_namespaced_config_map("py-a", ns, {"metadata": {"labels": {"patched": "smp"}}, "data": {"extra": "1"}})
        json_patched = v1.patch_namespaced_config_map("py-a", ns, [{"op": "replace", "path": "/data/k", "value": "v3"}, {"op": "remove", "path": "/data/extra"}])
        return {"mergedLabels": merged.metadata.labels, "mergedData": merged.data, "jsonPatchedData": json_patched.data}

    @step("configmap delete with a stale precondition conflicts, with the current one succeeds; get is NotFound")
    def _():
        current = v1.read_namespaced_config_map("py-a", ns)
        stale = client.V1DeleteOptions(preconditions=client.V1Preconditions(resource_version="1"))
        stale_status, stale_body = api_error(lambda: v1.delete_namespaced_config_map("py-a", ns, body=stale))
        ok = client.V1DeleteOptions(preconditions=client.V1Preconditions(resource_version=current.metadata.resource_version, uid=current.metadata.uid))
        deleted = v1.delete_namespaced_config_map("py-a", ns, body=ok)
        status, body = api_error(lambda: v1.read_namespaced_config_map("py-a", ns))
        return {
            "staleStatus": stale_status, "staleReason": stale_body.get("reason"),
            "deletedKind": deleted.kind, "deletedStatus": deleted.status,
            "getStatus": status, "getReason": body.get("reason"), "getMessage": body.get("message"),
        }

    @step("list paging with limit and continue")
    def _():
        for i in range(7):
            v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="page-%d" % i, labels={"paged": "yes"}), data={"i": str(i)}))
        names, sizes, remaining, tokens = [], [], [], 0
        cont = None
        list_rv = None
        while True:
            # No selector: then the server counts the items left (remainingItemCount); kube leaves
            # it out for lists with a label or field selector.
            kwargs = {"limit": 3}
            if cont:
                kwargs["_continue"] = cont
            page = v1.list_namespaced_config_map(ns, **kwargs)
            names += [i.metadata.name for i in page.items]
            sizes.append(len(page.items))
            remaining.append(page.metadata.remaining_item_count)
            list_rv = list_rv or page.metadata.resource_version
            # Every page of one list is served at the first page's resourceVersion.
            expect(page.metadata.resource_version == list_rv, "page at %s, first at %s" % (page.metadata.resource_version, list_rv))
            cont = page.metadata._continue
            if not cont:
                break
            tokens += 1
        return {"names": sorted(names), "sizes": sizes, "remaining": remaining, "continueTokens": tokens}

    @step("watch from a list's resourceVersion, then resume from the last event")
    def _():
        start_rv = v1.list_namespaced_config_map(ns).metadata.resource_version
        v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w-1"), data={"n": "1"}))
        v1.patch_namespaced_config_map("w-1", ns, {"data": {"n": "2"}})
        v1.delete_namespaced_config_map("w-1", ns)
        w = watch.Watch()
        first, bookmarks = [], 0
        for event in w.stream(v1.list_namespaced_config_map, ns, resource_version=start_rv, allow_watch_bookmarks=True,
                              field_selector="metadata.name=w-1", timeout_seconds=3, _request_timeout=20):
            if event["type"] == "BOOKMARK":
                bookmarks += 1
                continue
            first.append([event["type"], event["object"].metadata.name, event["object"].metadata.resource_version,
                          (event["object"].data or {}).get("n")])
            if len(first) == 3:
                w.stop()
        last_rv = w.resource_version
        v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w-1"), data={"n": "3"}))
        resumed = []
        w2 = watch.Watch()
        for event in w2.stream(v1.list_namespaced_config_map, ns, resource_version=last_rv, field_selector="metadata.name=w-1",
                               timeout_seconds=3, _request_timeout=20):
            if event["type"] == "BOOKMARK":
                continue
            resumed.append([event["type"], event["object"].metadata.name, event["object"].metadata.resource_version,
                            (event["object"].data or {}).get("n")])
            w2.stop()
        rvs = [int(e[2]) for e in first + resumed]
        expect(rvs == sorted(rvs) and len(set(rvs)) == len(rvs), "resourceVersions not increasing: %s" % rvs)
        expect(int(rvs[0]) > int(start_rv), "an event at or before the start resourceVersion")
        return {"first": [e[0] + ":" + str(e[3]) for e in first], "resumed": [e[0] + ":" + str(e[3]) for e in resumed],
                "lastResourceVersion": last_rv, "bookmarks": bookmarks}

    @step("watch from a resourceVersion that is too old is an expired error")
    def _():
        # A watch from resourceVersion 1 is older than the server keeps history for (the etcd
        # history is compacted by the driver first): the client retries once after the 410
        # ERROR event, then raises it.
        w = watch.Watch()
        try:
            for _event in w.stream(v1.list_namespaced_config_map, ns, resource_version="1", _request_timeout=20):
                pass
        except ApiException as err:
            return {"status": err.status, "reason": err.reason}
        raise AssertionError("the watch from resourceVersion 1 ended without an error")

    emit({"done": True, "steps": RESULTS["steps"], "failed": RESULTS["failed"]})
    return 0 if RESULTS["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
