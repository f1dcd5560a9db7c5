#!/usr/bin/env python3
"""Generates src/proto/messages.json: the protobuf message layouts (field
numbers, wire kinds, JSON names) of the kinds kubesim serves, read off the
prost messages of the `k8s-pb` crate (which prost-build generates from
Kubernetes' generated.proto files). JSON names are matched against the
schema's property names (prost renames fields to snake_case). Which zero
scalars a decoded body keeps comes from src/schema/zero-fields.json (made
by tools/gen-zero-fields.py from the Go types): run that one first.

Usage: tools/gen-proto-messages.py [--check]
The k8s-pb sources come from cargo's registry (`cargo fetch` brings them:
k8s-pb is a dev-dependency, used by the tests as an independent decoder).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src", "proto", "messages.json")

ROOTS = [
    "k8s.io.apimachinery.pkg.runtime.Unknown",
    "k8s.io.apimachinery.pkg.apis.meta.v1.Status",
    "k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent",
    "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata",
    "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList",
    "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    "k8s.io.api.autoscaling.v1.Scale",
    "k8s.io.api.core.v1.Binding",
    "k8s.io.api.policy.v1.Eviction",
    # Reviews: created, never listed.
    "k8s.io.api.authorization.v1.SubjectAccessReview",
    "k8s.io.api.authorization.v1.SelfSubjectAccessReview",
    "k8s.io.api.authorization.v1.LocalSubjectAccessReview",
    "k8s.io.api.authorization.v1.SelfSubjectRulesReview",
    "k8s.io.api.authentication.v1.SelfSubjectReview",
    "k8s.io.api.authentication.v1.TokenRequest",
    "k8s.io.api.authentication.v1.TokenReview",
]
KINDS = {
    "k8s.io.api.core.v1": ["Namespace", "Pod", "Service", "ConfigMap", "Secret", "ServiceAccount", "Node", "Event",
                           "Endpoints", "PersistentVolume", "PersistentVolumeClaim", "LimitRange", "ComponentStatus",
                           "ResourceQuota", "ReplicationController"],
    "k8s.io.api.apps.v1": ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"],
    "k8s.io.api.autoscaling.v1": ["HorizontalPodAutoscaler"],
    "k8s.io.api.autoscaling.v2": ["HorizontalPodAutoscaler"],
    "k8s.io.api.batch.v1": ["Job", "CronJob"],
    "k8s.io.api.coordination.v1": ["Lease"],
    "k8s.io.api.events.v1": ["Event"],
    "k8s.io.api.discovery.v1": ["EndpointSlice"],
    "k8s.io.api.networking.v1": ["Ingress", "IngressClass"],
    "k8s.io.api.policy.v1": ["PodDisruptionBudget"],
    "k8s.io.api.rbac.v1": ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"],
    "k8s.io.api.scheduling.v1": ["PriorityClass"],
    "k8s.io.api.storage.v1": ["StorageClass"],
    "k8s.io.api.flowcontrol.v1": ["FlowSchema", "PriorityLevelConfiguration"],
    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1": ["CustomResourceDefinition"],
}
for pkg, kinds in KINDS.items():
    for k in kinds:
        ROOTS += [f"{pkg}.{k}", f"{pkg}.{k}List"]


# Go writes every non-pointer field, zero or not, so a zero on the wire may
# mean "unset". Decoding keeps a zero scalar where Go's JSON encoder keeps
# it: a pointer to a value (`replicas: 0` is not replicas unset;
# `tolerationSeconds: 0` is not tolerating forever) and a field without
# `omitempty`, as src/schema/zero-fields.json lists them from the Go types
# (its "pointers" and "definitions"); and required fields. A message the
# schema has no definition for (TokenRequest's spec, fields newer than
# 1.33) falls back to these names, the optional pointers among its fields.
FALLBACK_KEEP_ZERO = {"expirationSeconds", "optional"}


def k8s_pb_dir():
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--locked"], cwd=ROOT))
    for p in meta["packages"]:
        if p["name"] == "k8s-pb":
            return os.path.join(os.path.dirname(p["manifest_path"]), "src")
    sys.exit("k8s-pb is not in the dependency graph (cargo fetch first)")


ATTR = re.compile(r'#\[prost\((?P<body>[^\]]*)\)\]\s*pub (?P<name>r#\w+|\w+):')


def field_type(body, start):
    """The Rust type after `name:` up to the comma at angle depth 0."""
    depth, i = 0, start
    while i < len(body):
        c = body[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "," and depth == 0:
            break
        i += 1
    return body[start:i]


def parse_module(path, package):
    """Yields (message, [(number, rust_name, kind, repeated, ref)])."""
    text = open(path).read()
    for m in re.finditer(r'^pub struct (\w+) \{(?:\}|\n(.*?)^\})', text, re.M | re.S):
        name, body = m.group(1), m.group(2) or ""
        fields = []
        for f in ATTR.finditer(body):
            attr, rust = f.group("body"), f.group("name").removeprefix("r#")
            ty = " ".join(field_type(body, f.end()).split())
            tag = int(re.search(r'tag = "(\d+)"', attr).group(1))
            repeated = "repeated" in attr
            if attr.startswith("btree_map") or attr.startswith("map"):
                kv = re.search(r'map = "([^"]+)"', attr).group(1).replace(" ", "")
                key, val = kv.split(",")
                ref = val
                if val == "message":
                    args = ty[ty.index("<") + 1:].rstrip("> ,")
                    inner = args.split(",")[-1].strip()
                    ref = "message:" + resolve(inner, package)
                fields.append((tag, rust, "map", False, f"{key},{ref}"))
                continue
            kind = attr.split(",")[0].split("=")[0].strip()
            ref = ""
            if kind == "message":
                inner = re.sub(r'::core::option::Option<|::prost::alloc::vec::Vec<|::prost::alloc::boxed::Box<|>', "", ty)
                ref = resolve(inner.strip(" ,"), package)
            fields.append((tag, rust, kind, repeated, ref))
        yield f"{package}.{name}", fields


def resolve(rust_path, package):
    parts = rust_path.split("::")
    if len(parts) == 1:
        return f"{package}.{parts[0]}"
    pkg = package.split(".")
    # k8s.io.<crate module path>: super:: climbs one module.
    mods = pkg[2:]
    while parts and parts[0] == "super":
        mods = mods[:-1]
        parts = parts[1:]
    return ".".join(["k8s", "io"] + mods + parts)


def snake_free(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def main():
    src = k8s_pb_dir()
    schema = json.load(open(os.path.join(ROOT, "src", "schema", "k8s-v1.33.json")))["definitions"]
    messages = {}
    for dirpath, _, files in os.walk(src):
        if "mod.rs" not in files:
            continue
        rel = os.path.relpath(dirpath, src)
        if rel == ".":
            continue
        package = "k8s.io." + rel.replace(os.sep, ".")
        for name, fields in parse_module(os.path.join(dirpath, "mod.rs"), package):
            messages[name] = fields

    # prost renames messages to UpperCamel (HTTPGetAction -> HttpGetAction):
    # find a message's schema by its name without regard to case.
    by_lower = {k.lower(): v for k, v in schema.items()}

    def props_of(name):
        return by_lower.get(("io.k8s." + name[len("k8s.io."):]).lower(), {}).get("properties")

    inlined_in = {}  # message -> the properties of the object that inlines it
    inlined_by = {}  # message -> the definition (lower case) that inlines it
    zero = json.load(open(os.path.join(ROOT, "src", "schema", "zero-fields.json")))
    pointers = {k.lower(): set(v) for k, v in zero["pointers"].items()}
    zero_fields = {k.lower(): set(v) for k, v in zero["definitions"].items()}

    def definition_of(name):
        """A message's schema definition, lower case, or None."""
        d = ("io.k8s." + name[len("k8s.io."):]).replace("_", "-").lower()
        return d if by_lower.get(d, {}).get("properties") else inlined_by.get(name)

    def keeps_zero(name, json_name, required):
        if json_name in required:
            return True
        d = definition_of(name)
        if d is None:
            return json_name in FALLBACK_KEEP_ZERO
        return json_name in pointers.get(d, ()) or json_name in zero_fields.get(d, ())

    def snake_names(name):
        return {snake_free(f[1]) for f in messages.get(name, [])}

    schema_required = {}
    out = {}
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        if name not in messages:
            sys.exit(f"no message {name}")
        definition = props_of(name) or inlined_in.get(name) or {}
        schema_required[name] = by_lower.get(("io.k8s." + name[len("k8s.io."):]).lower(), {}).get("required", [])
        if not definition and "apiextensions" in name:
            # The schema names this package io.k8s.apiextensions-apiserver.
            definition = by_lower.get(("io.k8s." + name[len("k8s.io."):]).replace("_", "-").lower(), {}).get("properties") or {}
        by_key = {snake_free(p): p for p in definition}
        fields = []
        for tag, rust, kind, repeated, ref in messages[name]:
            json_name = by_key.get(snake_free(rust))
            inner = props_of(ref) if kind == "message" else None
            embedded = kind == "message" and json_name is None and definition and (
                set(inner) <= set(definition) if inner is not None
                # (newer fields than the schema's release may be missing)
                else len(snake_names(ref) & {snake_free(p) for p in definition}) >= 0.8 * len(snake_names(ref)))
            if embedded:
                inlined_in[ref] = definition
                inlined_by[ref] = definition_of(name)
                # An embedded Go struct (`json:",inline"`): its fields sit in
                # this object's JSON.
                kind, json_name = "inline", ""
            if json_name is None:
                # Not in the schema (runtime and wire-only messages): lowerCamel.
                head, *rest = rust.split("_")
                json_name = head + "".join(w[:1].upper() + w[1:] for w in rest)
            required = set(schema_required.get(name, []))
            scalar = kind not in ("message", "map", "inline") and not repeated
            keep = "k" if scalar and keeps_zero(name, json_name, required) else ""
            fields.append([tag, json_name, kind, "r" if repeated else "", ref, keep])
            for r in (ref, ref.split("message:")[-1]):
                if r.startswith("k8s.io."):
                    todo.append(r)
        fields.sort()
        out[name] = fields

    text = json.dumps({"source": "k8s-pb 0.9.0 (prost-build output of Kubernetes' generated.proto files)",
                       "messages": dict(sorted(out.items()))}, separators=(",", ":"), sort_keys=False) + "\n"
    if "--check" in sys.argv:
        if open(OUT).read() != text:
            sys.exit(f"{OUT} is stale: run tools/gen-proto-messages.py")
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    open(OUT, "w").write(text)
    print(f"{len(out)} messages, {len(text)} bytes")


main()
