//! `describe role|clusterrole|rolebinding|clusterrolebinding`, as kubectl
//! 1.33's describers lay them out.

use super::*;

/// A Role or ClusterRole: its rules as kubectl lays them out (broken
/// down, gathered by resource, sorted: `rules::compacted`); an aggregated
/// ClusterRole's are what the aggregation controller wrote.
pub(super) fn role(_: &mut Session, w: &mut TabWriter, r: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(r, "/metadata/name")));
    labels(w, "", "Labels", r.pointer("/metadata/labels"));
    annotations(w, "Annotations", r.pointer("/metadata/annotations"));
    w.w(0, "PolicyRule:\n");
    w.w(1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n");
    w.w(1, "---------\t-----------------\t--------------\t-----\n");
    for rule in crate::kubectl::rules::compacted(items(r, "/rules")) {
        w.w(1, &format!("{}\n", rule.cells().join("\t")));
    }
}

/// A RoleBinding or ClusterRoleBinding: its role and subjects.
pub(super) fn binding(_: &mut Session, w: &mut TabWriter, b: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(b, "/metadata/name")));
    labels(w, "", "Labels", b.pointer("/metadata/labels"));
    annotations(w, "Annotations", b.pointer("/metadata/annotations"));
    w.w(0, "Role:\n");
    w.w(1, &format!("Kind:\t{}\n", text(b, "/roleRef/kind")));
    w.w(1, &format!("Name:\t{}\n", text(b, "/roleRef/name")));
    w.w(0, "Subjects:\n");
    w.w(1, "Kind\tName\tNamespace\n");
    w.w(1, "----\t----\t---------\n");
    for s in items(b, "/subjects") {
        w.w(1, &format!("{}\t{}\t{}\n", text(s, "/kind"), text(s, "/name"), text(s, "/namespace")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubectl::run;

    /// What kubectl 1.33 printed for the same objects served by `kubesim
    /// serve --authorization-mode RBAC`.
    #[test]
    fn roles_and_bindings_are_described_as_kubectl_describes_them() {
        let mut s = Session::new(7);
        for line in [
            "create role pod-reader --verb=get,list,watch --resource=pods,pods/log,deployments.apps",
            "create role settings --verb=get,update --resource=configmaps --resource-name=app-config --resource-name=flags",
            "create rolebinding alice-pods --role=pod-reader --user=alice --group=devs --serviceaccount=default:robot",
            "create clusterrolebinding health --clusterrole=system:public-info-viewer --user=bob",
            "label role pod-reader team=web",
        ] {
            let out = run(&mut s, line, "");
            assert!(!out.failed, "{line}: {}", out.text);
        }
        let cases = [
            (
                "describe role pod-reader",
                "Name:         pod-reader
Labels:       team=web
Annotations:  <none>
PolicyRule:
  Resources         Non-Resource URLs  Resource Names  Verbs
  ---------         -----------------  --------------  -----
  pods/log          []                 []              [get list watch]
  pods              []                 []              [get list watch]
  deployments.apps  []                 []              [get list watch]
",
            ),
            (
                "describe role settings",
                "Name:         settings
Labels:       <none>
Annotations:  <none>
PolicyRule:
  Resources   Non-Resource URLs  Resource Names  Verbs
  ---------   -----------------  --------------  -----
  configmaps  []                 [app-config]    [get update]
  configmaps  []                 [flags]         [get update]
",
            ),
            (
                "describe clusterrole system:public-info-viewer",
                "Name:         system:public-info-viewer
Labels:       kubernetes.io/bootstrapping=rbac-defaults
Annotations:  rbac.authorization.kubernetes.io/autoupdate: true
PolicyRule:
  Resources  Non-Resource URLs  Resource Names  Verbs
  ---------  -----------------  --------------  -----
             [/healthz]         []              [get]
             [/livez]           []              [get]
             [/readyz]          []              [get]
             [/version/]        []              [get]
             [/version]         []              [get]
",
            ),
            (
                "describe rolebinding alice-pods",
                "Name:         alice-pods
Labels:       <none>
Annotations:  <none>
Role:
  Kind:  Role
  Name:  pod-reader
Subjects:
  Kind            Name   Namespace
  ----            ----   ---------
  User            alice  
  Group           devs   
  ServiceAccount  robot  default
",
            ),
            (
                "describe clusterrolebinding health",
                "Name:         health
Labels:       <none>
Annotations:  <none>
Role:
  Kind:  ClusterRole
  Name:  system:public-info-viewer
Subjects:
  Kind  Name  Namespace
  ----  ----  ---------
  User  bob   
",
            ),
        ];
        for (line, expected) in cases {
            let out = run(&mut s, line, "");
            assert_eq!((out.text.as_str(), out.failed), (expected, false), "{line}");
        }
    }
}
