//! `describe storageclass`, as kubectl 1.33's describer lays it out.

use super::*;

/// `labels.FormatLabels`: `k=v` pairs sorted and joined by commas, or
/// `<none>`.
fn format_labels(map: Option<&Value>) -> String {
    let kv = sorted(map);
    if kv.is_empty() {
        return "<none>".into();
    }
    kv.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

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
