#!/usr/bin/env python3
"""Generates src/schema/zero-fields.json: for each struct definition of the
built-in schemas, the fields its Go type's zero value already has when
upstream converts it to JSON, and their values there.

Why: kube-apiserver's field manager compares a write with the object before
it, and for a create the object before it is the kind's zero Go value
(`Pod{}` converted: `{"metadata": {"creationTimestamp": null}, "spec":
{"containers": null}, "status": {}}`). A node present there (a non-pointer
struct, or any field without `omitempty`) is not "added" by the write, so
its FieldsV1 entry gets no `.`; a node absent there (a pointer struct, an
`omitempty` list or map) is added and does. The OpenAPI definitions do not
say which fields are pointers, so this table is read from the Go types.

Beside the zero fields the file lists, per definition, the fields that
are Go pointers to values (`replicas`: its zero is written, where an
omitempty value field's is left out) and the `+default` values of fields
that key a list map (`protocol: TCP` of a port: structured-merge-diff keys
an item that leaves it out by the default).

    python3 tools/gen-zero-fields.py API_GIT APIMACHINERY_GIT APIEXTENSIONS_GIT

The three arguments are git directories of k8s.io/api, k8s.io/apimachinery
and k8s.io/apiextensions-apiserver (bare clones do); the types are read at
TAG below with
`git show`. Nothing else is read, and nothing is typed here per kind: the
struct definitions come from src/schema/k8s-v1.33.json.
"""
import json
import os
import re
import subprocess
import sys

TAG = "v0.33.9"

# The defaults core/v1's hand-written defaulters set on structs wherever
# they appear (`SetDefaults_Probe`, `SetDefaults_HTTPGetAction`, the volume
# sources' `defaultMode`, ... in k8s.io/kubernetes pkg/apis/core/v1/defaults.go
# at v1.33), and GRPCAction's `+default=""`: read by hand, since they are Go
# code, not markers. A field listed in "pointers" takes its default when
# absent or null; any other also when it holds its Go zero ("", 0, false),
# as the defaulters test `obj.Path == ""`. SetDefaults_Volume (a volume with
# no source is an emptyDir) and the per-kind defaulters are the registry's.
SET_DEFAULTS = {
    "io.k8s.api.core.v1.AzureDiskVolumeSource": {"cachingMode": "ReadWrite", "fsType": "ext4", "kind": "Shared",
                                                 "readOnly": False},
    "io.k8s.api.core.v1.ConfigMapVolumeSource": {"defaultMode": 420},
    "io.k8s.api.core.v1.DownwardAPIVolumeSource": {"defaultMode": 420},
    "io.k8s.api.core.v1.GRPCAction": {"service": ""},
    "io.k8s.api.core.v1.HTTPGetAction": {"path": "/", "scheme": "HTTP"},
    "io.k8s.api.core.v1.HostPathVolumeSource": {"type": ""},
    "io.k8s.api.core.v1.ISCSIPersistentVolumeSource": {"iscsiInterface": "default"},
    "io.k8s.api.core.v1.ISCSIVolumeSource": {"iscsiInterface": "default"},
    "io.k8s.api.core.v1.ObjectFieldSelector": {"apiVersion": "v1"},
    "io.k8s.api.core.v1.Probe": {"failureThreshold": 3, "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
    "io.k8s.api.core.v1.ProjectedVolumeSource": {"defaultMode": 420},
    "io.k8s.api.core.v1.ScaleIOPersistentVolumeSource": {"fsType": "xfs", "storageMode": "ThinProvisioned"},
    "io.k8s.api.core.v1.ScaleIOVolumeSource": {"fsType": "xfs", "storageMode": "ThinProvisioned"},
    "io.k8s.api.core.v1.SecretVolumeSource": {"defaultMode": 420},
    "io.k8s.api.core.v1.ServiceAccountTokenProjection": {"expirationSeconds": 3600},
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "src", "schema", "k8s-v1.33.json")
OUT = os.path.join(ROOT, "src", "schema", "zero-fields.json")

# apimachinery's packages the API types name, by import path suffix, with
# their definition-name prefixes.
MACHINERY = {
    "pkg/apis/meta/v1": "io.k8s.apimachinery.pkg.apis.meta.v1",
    "pkg/util/intstr": "io.k8s.apimachinery.pkg.util.intstr",
    "pkg/api/resource": "io.k8s.apimachinery.pkg.api.resource",
    "pkg/runtime": "io.k8s.apimachinery.pkg.runtime",
    "pkg/types": "io.k8s.apimachinery.pkg.types",
}
# Structs that write themselves (MarshalJSON / ToUnstructured): their zero
# value as JSON.
SELF_WRITTEN = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": None,
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": None,
    "io.k8s.apimachinery.pkg.apis.meta.v1.Duration": "0s",
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "0",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": 0,
    "io.k8s.apimachinery.pkg.runtime.RawExtension": None,
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": None,
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": None,
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": None,
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": False,
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": None,
}
EXTENSIONS = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
# What zero_of says of a field the zero value leaves out.
ABSENT = object()
BUILTIN_ZERO = {
    "string": "", "bool": False, "byte": 0, "rune": 0, "float32": 0, "float64": 0,
    **{t: 0 for t in ["int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"]},
}

STRUCT = re.compile(r"^type (\w+) struct \{\s*$")
NAMED = re.compile(r"^type (\w+) (\S.*?)\s*(//.*)?$")
FIELD = re.compile(r'^\s*(\w+)\s+([^\s`]+)\s+`([^`]*)`')
EMBEDDED = re.compile(r'^\s*([\w.*]+)\s+`([^`]*)`')
IMPORT = re.compile(r'^\s*(\w+)?\s*"([^"]+)"')


def git_show(git_dir, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{TAG}:{path}"],
                          check=True, capture_output=True, text=True).stdout


def go_files(git_dir, directory):
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "--name-only", TAG, directory + "/"],
                         check=True, capture_output=True, text=True).stdout.split()
    return [p for p in out if p.endswith(".go") and not p.endswith("_test.go")
            and not os.path.basename(p).startswith(("zz_generated", "generated."))]


class Package:
    def __init__(self, prefix):
        self.prefix = prefix
        self.structs = {}   # name -> [(json name | None for inline, go type, omitempty)]
        self.named = {}     # name -> underlying go type
        self.imports = {}   # alias -> import path
        self.defaults = {}  # (struct, json name) -> the +default marker's text

    def read(self, text):
        lines = text.splitlines()
        in_imports = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("import ("):
                in_imports = True
            elif in_imports and line.startswith(")"):
                in_imports = False
            elif in_imports or line.startswith("import "):
                m = IMPORT.match(line.replace("import ", "", 1))
                if m:
                    path = m.group(2)
                    self.imports[m.group(1) or path.rsplit("/", 1)[-1]] = path
            m = STRUCT.match(line)
            if m:
                fields = []
                default = None
                i += 1
                while i < len(lines) and not lines[i].startswith("}"):
                    f = lines[i]
                    marker = re.match(r"\s*//\s*\+default=(.*)$", f)
                    if marker:
                        default = marker.group(1).strip()
                    if not f.strip().startswith("//"):
                        fm = FIELD.match(f)
                        em = None if fm else EMBEDDED.match(f)
                        tag = (fm.group(3) if fm else em.group(2) if em else None)
                        if tag is not None:
                            j = re.search(r'json:"([^"]*)"', tag)
                            jname, *opts = (j.group(1) if j else "").split(",")
                            ty = fm.group(2) if fm else em.group(1)
                            if jname != "-":
                                fields.append((jname or None, ty, "omitempty" in opts, fm is None))
                                if default is not None and jname:
                                    self.defaults[(m.group(1), jname)] = default
                        default = None
                    i += 1
                self.structs[m.group(1)] = fields
            else:
                m = NAMED.match(line)
                if m and not m.group(2).startswith(("struct", "interface", "(", "=")):
                    self.named[m.group(1)] = m.group(2)
            i += 1


def load(api_dir, machinery_dir, extensions_dir, schemas):
    packages = {}  # import path -> Package
    wanted = {n.rsplit(".", 1)[0] for n in schemas} | set(MACHINERY.values())
    for prefix in sorted(wanted):
        if prefix.startswith("io.k8s.api."):
            directory = prefix[len("io.k8s.api."):].replace(".", "/")
            git_dir, path = api_dir, "k8s.io/api/" + directory
        elif prefix == EXTENSIONS:
            directory = "pkg/apis/apiextensions/v1"
            git_dir, path = extensions_dir, "k8s.io/apiextensions-apiserver/" + directory
        else:
            found = [d for d, p in MACHINERY.items() if p == prefix]
            if not found:
                continue
            directory, git_dir, path = found[0], machinery_dir, "k8s.io/apimachinery/" + found[0]
        pkg = Package(prefix)
        for f in go_files(git_dir, directory):
            pkg.read(git_show(git_dir, f))
        packages[path] = pkg
    return packages


def zero_of(packages, pkg, ty, omitempty):
    """The field's value in its struct's zero value, or `absent`."""
    absent = ABSENT
    if ty.startswith("*") or ty.startswith("[]") or ty.startswith("map["):
        return absent if omitempty else None
    if ty in BUILTIN_ZERO:
        return absent if omitempty else BUILTIN_ZERO[ty]
    target, name = resolve(packages, pkg, ty)
    if target is None:
        raise SystemExit(f"{pkg.prefix}: cannot resolve Go type {ty}")
    full = f"{target.prefix}.{name}"
    if full in SELF_WRITTEN:
        return SELF_WRITTEN[full]
    if name in target.structs:
        # A struct is written whatever its tag says.
        return {}
    if name in target.named:
        return zero_of(packages, target, target.named[name], omitempty)
    raise SystemExit(f"{full}: neither a struct nor a named type")




def resolve(packages, pkg, ty):
    if "." in ty:
        alias, name = ty.split(".", 1)
        path = pkg.imports.get(alias)
        return packages.get(path), name
    return pkg, ty


def fields_of(packages, pkg, name):
    """A struct's JSON fields, inline embeddings flattened."""
    out = []
    for jname, ty, omitempty, embedded in pkg.structs[name]:
        if jname is None and embedded:
            target, inner = resolve(packages, pkg, ty.lstrip("*"))
            if target is not None and inner in target.structs:
                out.extend(fields_of(packages, target, inner))
            continue
        out.append((jname, ty, omitempty))
    return out


def is_struct(schemas, node):
    """Whether a schema node is an object with declared fields."""
    ref = node.get("$ref")
    if ref:
        node = schemas.get(ref.rsplit("/", 1)[-1], {})
    return "properties" in node


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    schemas = json.load(open(SCHEMAS))["definitions"]
    packages = load(sys.argv[1], sys.argv[2], sys.argv[3], schemas)
    by_prefix = {p.prefix: p for p in packages.values()}
    table, pointers = {}, {}
    for definition in sorted(schemas):
        props = schemas[definition].get("properties")
        prefix, name = definition.rsplit(".", 1)
        pkg = by_prefix.get(prefix)
        if not props or pkg is None or name not in pkg.structs:
            continue
        zeros = {}
        for jname, ty, omitempty in fields_of(packages, pkg, name):
            z = zero_of(packages, pkg, ty, omitempty)
            if z is not ABSENT and jname in props:
                zeros[jname] = z
        if zeros:
            table[definition] = dict(sorted(zeros.items()))
        # Pointers to values (not to structs): their zero (`replicas: 0`,
        # `automountServiceAccountToken: false`) is written, where an
        # omitempty value field's is left out.
        ptrs = sorted(jname for jname, ty, _ in fields_of(packages, pkg, name)
                      if ty.startswith("*") and jname in props and not is_struct(schemas, props[jname]))
        if ptrs:
            pointers[definition] = ptrs
    # The defaults (`+default=`) of fields that key a list map
    # (`protocol` of a port): a list item that leaves its key field out is
    # keyed by the default, as structured-merge-diff keys it.
    key_defaults = {}
    for d in schemas.values():
        for prop in (d.get("properties") or {}).values():
            keys = prop.get("x-kubernetes-list-map-keys") or []
            ref = (prop.get("items") or {}).get("$ref", "")
            item = ref.rsplit("/", 1)[-1]
            prefix, name = item.rsplit(".", 1) if "." in item else ("", "")
            pkg = by_prefix.get(prefix)
            for key in keys:
                text = pkg.defaults.get((name, key)) if pkg else None
                try:
                    value = json.loads(text) if text is not None else None
                except json.JSONDecodeError:
                    value = None
                if value is not None:
                    key_defaults.setdefault(item, {})[key] = value
    doc = {"source": f"k8s.io/api, apimachinery and apiextensions-apiserver {TAG}, Go types (tools/gen-zero-fields.py)",
           "definitions": table, "pointers": pointers, "keyDefaults": dict(sorted(key_defaults.items())),
           "setDefaults": dict(sorted(SET_DEFAULTS.items()))}
    # One definition a line: small, and diffs stay readable.
    compact = lambda v: json.dumps(v, separators=(",", ":"))
    with open(OUT, "w") as f:
        f.write('{"source":' + compact(doc["source"]))
        for part in ("definitions", "pointers", "keyDefaults", "setDefaults"):
            f.write(f',\n"{part}":{{\n')
            f.write(",\n".join(f"{compact(k)}:{compact(v)}" for k, v in doc[part].items()))
            f.write("}")
        f.write("}\n")
    print(f"{len(table)} definitions written to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
