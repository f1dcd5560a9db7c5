//! `describe storageclass` and `describe pv`, as kubectl 1.33's describers
//! lay them out.

use super::*;

pub(super) fn storage_class(s: &mut Session, w: &mut TabWriter, sc: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(sc, "/metadata/name")));
    let marked = ["storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"]
        .iter()
        .any(|k| sc["metadata"]["annotations"][*k] == "true");
    w.w(0, &format!("IsDefaultClass:\t{}\n", if marked { "Yes" } else { "No" }));
    w.w(0, &format!("Annotations:\t{}\n", format_labels(sc.pointer("/metadata/annotations"))));
    w.w(0, &format!("Provisioner:\t{}\n", text(sc, "/provisioner")));
    w.w(0, &format!("Parameters:\t{}\n", format_labels(sc.get("parameters"))));
    let expansion = match sc["allowVolumeExpansion"].as_bool() {
        None => "<unset>",
        Some(true) => "True",
        Some(false) => "False",
    };
    w.w(0, &format!("AllowVolumeExpansion:\t{expansion}\n"));
    match items(sc, "/mountOptions") {
        [] => w.w(0, "MountOptions:\t<none>\n"),
        options => {
            w.w(0, "MountOptions:\n");
            for o in options {
                w.w(0, &format!("  {}\n", o.as_str().unwrap_or("")));
            }
        }
    }
    for field in ["reclaimPolicy", "volumeBindingMode"] {
        if let Some(v) = sc[field].as_str() {
            let title = format!("{}{}", field[..1].to_uppercase(), &field[1..]);
            w.w(0, &format!("{title}:\t{v}\n"));
        }
    }
    events(s, w, sc, "StorageClass", "");
}

/// `GetAccessModesAsString`: the short names of the modes listed at
/// `path`, in kubectl's fixed order.
pub(super) fn access_modes(obj: &Value, path: &str) -> String {
    let held: Vec<&str> = items(obj, path).iter().filter_map(Value::as_str).collect();
    let short =
        [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP")];
    let modes: Vec<&str> = short.iter().filter(|(m, _)| held.contains(m)).map(|(_, s)| *s).collect();
    modes.join(",")
}

pub(super) fn volume(s: &mut Session, w: &mut TabWriter, pv: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(pv, "/metadata/name")));
    labels(w, "", "Labels", pv.pointer("/metadata/labels"));
    annotations(w, "Annotations", pv.pointer("/metadata/annotations"));
    let finalizers: Vec<&str> = items(pv, "/metadata/finalizers").iter().filter_map(Value::as_str).collect();
    w.w(0, &format!("Finalizers:\t[{}]\n", finalizers.join(" ")));
    let class = match text(pv, "/metadata/annotations/volume.beta.kubernetes.io~1storage-class") {
        "" => text(pv, "/spec/storageClassName"),
        c => c,
    };
    w.w(0, &format!("StorageClass:\t{class}\n"));
    match when(pv, "/metadata/deletionTimestamp") {
        Some(t) => w.w(0, &format!("Status:\tTerminating (lasts {})\n", crate::format::age(s.server.now().0, t))),
        None => w.w(0, &format!("Status:\t{}\n", text(pv, "/status/phase"))),
    }
    let claim = match pv.pointer("/spec/claimRef").filter(|c| c.is_object()) {
        Some(c) => format!("{}/{}", text(c, "/namespace"), text(c, "/name")),
        None => String::new(),
    };
    w.w(0, &format!("Claim:\t{claim}\n"));
    w.w(0, &format!("Reclaim Policy:\t{}\n", text(pv, "/spec/persistentVolumeReclaimPolicy")));
    w.w(0, &format!("Access Modes:\t{}\n", access_modes(pv, "/spec/accessModes")));
    if let Some(mode) = pv.pointer("/spec/volumeMode").and_then(Value::as_str) {
        w.w(0, &format!("VolumeMode:\t{mode}\n"));
    }
    w.w(0, &format!("Capacity:\t{}\n", text(pv, "/spec/capacity/storage")));
    node_affinity(w, pv.pointer("/spec/nodeAffinity/required"));
    w.w(0, &format!("Message:\t{}\n", text(pv, "/status/message")));
    w.w(0, "Source:\n");
    source(w, &pv["spec"]);
    events(s, w, pv, "PersistentVolume", "");
}

/// `printVolumeNodeAffinity`: each required term's expressions, the
/// operator in lower case and the values in brackets.
fn node_affinity(w: &mut TabWriter, required: Option<&Value>) {
    let Some(required) = required.filter(|r| r.is_object()) else {
        return w.w(0, "Node Affinity:\t<none>\n");
    };
    w.w(0, "Node Affinity:\t\n");
    let terms = items(required, "/nodeSelectorTerms");
    if terms.is_empty() {
        return w.w(1, "Required Terms:\t<none>\n");
    }
    w.w(1, "Required Terms:\t\n");
    for (i, term) in terms.iter().enumerate() {
        w.w(2, &format!("Term {i}:\t"));
        let expressions = items(term, "/matchExpressions");
        if expressions.is_empty() {
            w.w(0, "<none>\n");
        }
        for (j, e) in expressions.iter().enumerate() {
            if j > 0 {
                w.w(2, "\t");
            }
            let values: Vec<&str> = items(e, "/values").iter().filter_map(Value::as_str).collect();
            let mut line = format!("{} {}", text(e, "/key"), text(e, "/operator").to_lowercase());
            if !values.is_empty() {
                line.push_str(&format!(" [{}]", values.join(", ")));
            }
            w.w(0, &format!("{line}\n"));
        }
    }
}

/// The volume's source, for the kinds a simulated cluster can hold
/// volumes of (others print as kubectl prints a source it does not know).
fn source(w: &mut TabWriter, spec: &Value) {
    if let Some(h) = spec.get("hostPath") {
        w.w(2, "Type:\tHostPath (bare host directory volume)\n");
        w.w(2, &format!("Path:\t{}\n", text(h, "/path")));
        w.w(2, &format!("HostPathType:\t{}\n", h.get("type").and_then(Value::as_str).unwrap_or("<none>")));
    } else if let Some(l) = spec.get("local") {
        w.w(2, "Type:\tLocalVolume (a persistent volume backed by local storage on a node)\n");
        w.w(2, &format!("Path:\t{}\n", text(l, "/path")));
    } else if let Some(n) = spec.get("nfs") {
        w.w(2, "Type:\tNFS (an NFS mount that lasts the lifetime of a pod)\n");
        w.w(2, &format!("Server:\t{}\n", text(n, "/server")));
        w.w(2, &format!("Path:\t{}\n", text(n, "/path")));
        w.w(2, &format!("ReadOnly:\t{}\n", n["readOnly"].as_bool().unwrap_or(false)));
    } else if let Some(c) = spec.get("csi") {
        w.w(2, "Type:\tCSI (a Container Storage Interface (CSI) volume source)\n");
        w.w(2, &format!("Driver:\t{}\n", text(c, "/driver")));
        w.w(2, &format!("FSType:\t{}\n", text(c, "/fsType")));
        w.w(2, &format!("VolumeHandle:\t{}\n", text(c, "/volumeHandle")));
        w.w(2, &format!("ReadOnly:\t{}\n", c["readOnly"].as_bool().unwrap_or(false)));
        // Each attribute `k=v` on a line, indented after the tab as kubectl
        // indents them (the later lines' first cell doubly), cut past 140
        // bytes.
        w.w(2, "VolumeAttributes:\t");
        let attributes = sorted(c.get("volumeAttributes"));
        if attributes.is_empty() {
            w.w(0, "<none>\n");
        }
        for (i, (k, v)) in attributes.iter().enumerate() {
            if i > 0 {
                w.w(2, "");
                w.w(2, "\t");
            }
            let line = format!("{k}={v}");
            match line.get(..MAX_ANNOTATION_LEN) {
                Some(cut) if line.len() > MAX_ANNOTATION_LEN => w.w(2, &format!("{cut}...\n")),
                _ => w.w(2, &format!("{line}\n")),
            }
        }
    } else {
        w.w(1, "<unknown>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::session;
    use crate::kubectl::run;

    /// As kubectl 1.33 printed the same volume from `kubesim serve`: node
    /// affinity of two terms, a CSI source and its attributes.
    #[test]
    fn a_csi_volume_as_kubectl_describes_it() {
        let mut s = session();
        let yaml = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: csi-one}\nspec:\n  capacity: {storage: 2Gi}\n  accessModes: [ReadWriteMany, ReadWriteOnce]\n  storageClassName: \"\"\n  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-123, fsType: ext4, volumeAttributes: {b: \"2\", a: \"1\"}}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: zone, operator: In, values: [a, b]}, {key: gpu, operator: Exists}]\n      - matchExpressions: [{key: x, operator: NotIn, values: [yy]}]\n";
        assert!(!run(&mut s, "apply -f -", yaml).failed);
        s.tick(500.0);
        assert_eq!(
            run(&mut s, "describe pv csi-one", "").text,
            "Name:              csi-one\nLabels:            <none>\nAnnotations:       <none>\nFinalizers:        [kubernetes.io/pv-protection]\nStorageClass:      \nStatus:            Available\nClaim:             \nReclaim Policy:    Retain\nAccess Modes:      RWO,RWX\nVolumeMode:        Filesystem\nCapacity:          2Gi\nNode Affinity:     \n  Required Terms:  \n    Term 0:        zone in [a, b]\n                   gpu exists\n    Term 1:        x notin [yy]\nMessage:           \nSource:\n    Type:              CSI (a Container Storage Interface (CSI) volume source)\n    Driver:            ebs.csi.aws.com\n    FSType:            ext4\n    VolumeHandle:      vol-123\n    ReadOnly:          false\n    VolumeAttributes:      a=1\n                           b=2\nEvents:                <none>\n"
        );
    }
}
