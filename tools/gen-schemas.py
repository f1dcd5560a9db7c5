#!/usr/bin/env python3
"""Generates src/schema/k8s-v1.33.json: the schemas of kubesim's built-in
kinds (and every type they reach), taken from the Kubernetes OpenAPI
definitions that PyPI's kubernetes-validate package ships (pinned below),
compacted for the core and the browser bundle.

    python3 tools/gen-schemas.py            # regenerate
    python3 tools/gen-schemas.py --check    # fail if the committed file differs

Nothing here is typed by hand per kind: the roots are the kinds the
registry serves (read from src/registry/kinds.rs), and each definition keeps
what the API server uses: types and formats, required fields, list and map
types with their keys, patch strategies and merge keys, int-or-string,
preserve-unknown-fields, the group/version/kind, and the descriptions (for
`kubectl explain` and the OpenAPI documents).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "kubernetes-validate"
PACKAGE_VERSION = "1.37.0"
API_VERSION = "v1.33.0-local"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src", "schema", "k8s-v1.33.json")
# The browser build embeds the same schemas without descriptions (a quarter
# of the size); see src/schema.rs.
OUT_NODOC = os.path.join(ROOT, "src", "schema", "k8s-v1.33.nodoc.json")
REF = "#/$defs/"
# Types every request path may need beside the kinds themselves.
EXTRA_ROOTS = [
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
    "io.k8s.api.autoscaling.v1.Scale",
    "io.k8s.api.policy.v1.Eviction",
]
KEEP = {
    "description", "type", "format", "required", "properties", "items", "additionalProperties", "enum",
    "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-patch-merge-key",
    "x-kubernetes-patch-strategy", "x-kubernetes-map-type", "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "x-kubernetes-group-version-kind",
}


def wheel_path():
    cache = os.path.join(tempfile.gettempdir(), "kubesim-schema-cache")
    os.makedirs(cache, exist_ok=True)
    name = f"{PACKAGE.replace('-', '_')}-{PACKAGE_VERSION}-py3-none-any.whl"
    path = os.path.join(cache, name)
    if not os.path.exists(path):
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", cache, f"{PACKAGE}=={PACKAGE_VERSION}"],
            check=True,
        )
    return path


def served_kinds():
    text = open(os.path.join(ROOT, "src", "registry", "kinds.rs")).read()
    found = re.findall(r'rt\(\s*"([^"]*)",\s*"([^"]*)",\s*"[^"]*",\s*"[^"]*",\s*"([^"]*)"', text)
    if len(found) < 10:
        sys.exit("could not read the kinds from src/registry/kinds.rs")
    # Reviews (`review(group, resource, kind)`) are all v1.
    found += [(g, "v1", k) for g, k in re.findall(r'review\(\s*"([^"]*)",\s*"[^"]*",\s*"([^"]*)"\)', text)]
    return {(g, v, k) for g, v, k in found}


def compact(node):
    if isinstance(node, list):
        return [compact(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "$ref":
            out["$ref"] = value[len(REF):] if value.startswith(REF) else value
        elif key == "allOf" and len(value) == 1 and "$ref" in value[0]:
            out["$ref"] = value[0]["$ref"][len(REF):]
        elif key == "type" and isinstance(value, list):
            kinds = [t for t in value if t != "null"]
            out["type"] = kinds[0] if len(kinds) == 1 else kinds
        elif key == "oneOf" and all(set(o) == {"type"} for o in value):
            # int-or-string and quantity: a value of either scalar type.
            out["type"] = [t for o in value for t in ([o["type"]] if isinstance(o["type"], str) else o["type"]) if t != "null"]
        elif key == "properties":
            out["properties"] = {k: compact(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = compact(value)
        elif key in KEEP:
            out[key] = value
    return out


def refs(node, acc):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                acc.add(value[len(REF):] if value.startswith(REF) else value)
            else:
                refs(value, acc)
    elif isinstance(node, list):
        for n in node:
            refs(n, acc)


def main():
    with zipfile.ZipFile(wheel_path()) as z:
        doc = json.loads(z.read(f"kubernetes_validate/kubernetes-json-schema/{API_VERSION}/_definitions.json"))
    defs = doc["$defs"]
    wanted = served_kinds()
    roots = []
    for name, d in defs.items():
        for gvk in d.get("x-kubernetes-group-version-kind", []):
            if (gvk.get("group", ""), gvk.get("version"), gvk.get("kind")) in wanted:
                roots.append(name)
    missing = wanted - {
        (g.get("group", ""), g.get("version"), g.get("kind"))
        for n in roots
        for g in defs[n].get("x-kubernetes-group-version-kind", [])
    }
    if missing:
        sys.exit(f"no schema for {sorted(missing)}")
    todo, seen = list(roots) + EXTRA_ROOTS, set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        acc = set()
        refs(defs[name], acc)
        todo.extend(acc - seen)
    out = {
        "source": f"{PACKAGE} {PACKAGE_VERSION}, {API_VERSION}",
        "definitions": {name: compact(defs[name]) for name in sorted(seen)},
    }
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "description"}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    texts = {
        OUT: json.dumps(out, sort_keys=True, separators=(",", ":")) + "\n",
        OUT_NODOC: json.dumps(strip(out), sort_keys=True, separators=(",", ":")) + "\n",
    }
    for path, text in texts.items():
        if "--check" in sys.argv:
            if open(path).read() != text:
                sys.exit(f"{path} is out of date: run python3 tools/gen-schemas.py")
            print(f"{path} is up to date ({len(seen)} definitions)")
            continue
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote {path}: {len(seen)} definitions, {len(text)} bytes")


if __name__ == "__main__":
    main()
