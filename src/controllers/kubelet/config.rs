//! What the kubelet needs before it can make a container: an image
//! reference it can parse, and the ConfigMaps and Secrets its environment
//! names (`env[].valueFrom.configMapKeyRef`, `secretKeyRef`, `envFrom[]`).
//! As upstream's image manager, an image it cannot parse (`NGINX`, `nginx:`)
//! stops the container at `InvalidImageName` (Warning `InspectFailed`,
//! then `Failed` `Error: InvalidImageName`); as its
//! `makeEnvironmentVariables`, a missing object or key that is not
//! `optional` stops it at `CreateContainerConfigError` (`Pulled`, then a
//! Warning `Failed` `Error: configmap "x" not found`). The pod stays
//! `Pending`; the kubelet tries again after its pod worker's back-off.
//!
//! The kubelet reads each object with a GET, as its configmap and secret
//! managers do for a pod bound to it.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::super::client::Client;
use super::super::events::{EventType, Recorder};
use super::super::informer::key_of;

/// The pod worker's back-off after a failed sync (upstream's 10 s; the
/// jitter left out).
pub(super) const RETRY_MS: i64 = 10_000;

/// Whether the container may not be made as it is: its environment names
/// something to read, or its image is written in a way a reference may
/// not be (upper case, a space, an empty tag). Cheap, and true for no
/// container a server starts with.
pub(super) fn suspect(c: &Value) -> bool {
    let image = c["image"].as_str().unwrap_or("");
    c["envFrom"].as_array().is_some_and(|a| !a.is_empty())
        || c["env"].as_array().is_some_and(|a| a.iter().any(|e| e["valueFrom"].is_object()))
        || !image.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-/:@".contains(&b))
        || matches!(image.as_bytes().last(), Some(b':' | b'/' | b'@' | b'.' | b'-'))
        || image.contains("//")
        || image.contains("::")
        || image.contains(".invalid")
}

/// Failed pulls by pod (cache key), container and image: how many in a
/// row, and until when the next is backed off.
pub(super) type Pulls = BTreeMap<(String, String, String), (u32, i64)>;

/// Why a container is not made: its waiting reason, the message, and the
/// kubelet's events (type, reason, message) about it.
pub(super) struct Problem {
    reason: &'static str,
    message: String,
    events: Vec<(EventType, &'static str, String)>,
    /// When (milliseconds from now) the kubelet tries again.
    again: i64,
}

/// What stops container `c` of `pod`, if anything: its image first (the
/// image manager runs before the container's configuration is made: a
/// reference it cannot parse, an image it cannot pull, backed off in
/// `pulls`), then its environment. Never inlined: only a suspect
/// container comes here.
#[inline(never)]
pub(super) fn problem(client: &mut Client<'_>, pulls: &mut Pulls, pod: &Value, c: &Value) -> Option<Problem> {
    let image = c["image"].as_str().unwrap_or("");
    if let Some(why) = reference_error(image) {
        let message =
            format!("Failed to apply default image tag {image:?}: couldn't parse image name {image:?}: {why}");
        let events = vec![
            (EventType::Warning, "InspectFailed", message.clone()),
            (EventType::Warning, "Failed", "Error: InvalidImageName".to_string()),
        ];
        return Some(Problem { reason: "InvalidImageName", message, events, again: RETRY_MS });
    }
    if let Some(host) = unreachable_registry(image) {
        let key = (key_of(pod), c["name"].as_str().unwrap_or("").to_string(), image.to_string());
        return Some(pull_failed(client.now_millis(), pulls, key, c, image, host));
    }
    let namespace = pod["metadata"]["namespace"].as_str().unwrap_or("");
    let message = config_error(client, namespace, c)?;
    let events = vec![
        (EventType::Normal, "Pulled", format!("Container image {image:?} already present on machine")),
        (EventType::Warning, "Failed", format!("Error: {message}")),
    ];
    Some(Problem { reason: "CreateContainerConfigError", message, events, again: RETRY_MS })
}

/// The registry of `image` when it is one no one can reach: a host under
/// `.invalid`, the top-level domain RFC 2606 keeps from ever resolving.
/// (Every other image counts as present on the node.)
fn unreachable_registry(image: &str) -> Option<&str> {
    let (host, _) = image.split_once('/').filter(|(h, _)| h.contains(['.', ':']))?;
    let name = host.split(':').next().unwrap_or(host);
    (name == "invalid" || name.ends_with(".invalid")).then_some(host)
}

/// The image back-off's first and longest waits, as the kubelet's.
const PULL_BACKOFF_MS: i64 = 10_000;
const PULL_BACKOFF_MAX_MS: i64 = 300_000;

/// A pull of an image from an unreachable registry: tried (`Pulling`, a
/// Warning `Failed` with the runtime's error, `ErrImagePull`) when its
/// back-off allows, else `ImagePullBackOff` until it does; under
/// `imagePullPolicy: Never`, `ErrImageNeverPull`.
fn pull_failed(
    now: i64,
    pulls: &mut Pulls,
    key: (String, String, String),
    c: &Value,
    image: &str,
    host: &str,
) -> Problem {
    if c["imagePullPolicy"] == "Never" {
        let message = format!("Container image {image:?} is not present with pull policy of Never");
        let events = vec![
            (EventType::Warning, "ErrImageNeverPull", message.clone()),
            (EventType::Warning, "Failed", "Error: ErrImageNeverPull".to_string()),
        ];
        return Problem { reason: "ErrImageNeverPull", message, events, again: RETRY_MS };
    }
    let full = super::full_image(image);
    let (repo, tag) = full.rsplit_once(':').filter(|(_, t)| !t.contains('/')).unwrap_or((&full, "latest"));
    let path = repo.strip_prefix(host).unwrap_or(repo).trim_start_matches('/');
    let name = host.split(':').next().unwrap_or(host);
    let error = format!(
        "rpc error: code = Unknown desc = failed to pull and unpack image {full:?}: failed to resolve reference {full:?}: failed to do request: Head \"https://{host}/v2/{path}/manifests/{tag}\": dial tcp: lookup {name} on 172.18.0.1:53: no such host"
    );
    let (failures, until) = pulls.get(&key).copied().unwrap_or((0, 0));
    if failures > 0 && now < until {
        let message = format!("Back-off pulling image {image:?}: ErrImagePull: {error}");
        let events = vec![
            (EventType::Normal, "BackOff", format!("Back-off pulling image {image:?}")),
            (EventType::Warning, "Failed", "Error: ImagePullBackOff".to_string()),
        ];
        return Problem { reason: "ImagePullBackOff", message, events, again: until - now };
    }
    let wait = (PULL_BACKOFF_MS << failures.min(5)).min(PULL_BACKOFF_MAX_MS);
    pulls.insert(key, (failures + 1, now + wait));
    let events = vec![
        (EventType::Normal, "Pulling", format!("Pulling image {image:?}")),
        (EventType::Warning, "Failed", format!("Failed to pull image {image:?}: {error}")),
        (EventType::Warning, "Failed", "Error: ErrImagePull".to_string()),
    ];
    // The next sync, a moment later, finds the pull backed off.
    Problem { reason: "ErrImagePull", message: error, events, again: 1_000 }
}

/// Why `image` is not a reference the runtime can parse (the grammar of
/// `distribution/reference`, as `ParseNormalizedNamed` applies it), or
/// None.
fn reference_error(image: &str) -> Option<String> {
    const INVALID: &str = "invalid reference format";
    let (rest, digest) = match image.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (image, None),
    };
    // A tag follows the last colon after the last slash.
    let slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[slash..].rfind(':') {
        Some(i) => (&rest[..slash + i], Some(&rest[slash + i + 1..])),
        None => (rest, None),
    };
    // The first component is a registry when it looks like a host.
    let (domain, remote) = match name.split_once('/') {
        Some((d, r)) if d.contains(['.', ':']) || d == "localhost" || d.to_lowercase() != d => (Some(d), r.to_string()),
        Some(_) => (None, name.to_string()),
        None => (None, format!("library/{name}")),
    };
    if remote.to_lowercase() != remote {
        return Some(format!("{INVALID}: repository name ({remote}) must be lowercase"));
    }
    let component = |p: &str| {
        let b = p.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b"._-".contains(c))
            && !p.contains("..")
            && !p.contains("___")
    };
    let host = |d: &str| {
        let (h, port) = d.split_once(':').unwrap_or((d, "0"));
        !h.is_empty()
            && h.split('.').all(|l| !l.is_empty() && l.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-'))
            && !port.is_empty()
            && port.bytes().all(|c| c.is_ascii_digit())
    };
    let tag_ok = |t: &str| {
        let b = t.as_bytes();
        !b.is_empty()
            && b.len() <= 128
            && (b[0].is_ascii_alphanumeric() || b[0] == b'_')
            && b.iter().all(|c| c.is_ascii_alphanumeric() || b"_.-".contains(c))
    };
    let digest_ok = |d: &str| d.split_once(':').is_some_and(|(a, h)| !a.is_empty() && h.len() >= 32);
    let valid = remote.split('/').all(component)
        && domain.is_none_or(host)
        && tag.is_none_or(tag_ok)
        && digest.is_none_or(digest_ok);
    (!valid).then(|| INVALID.to_string())
}

/// One object's kind as the kubelet's managers name it in their errors,
/// its collection, and what a key missing from it is called.
struct Source {
    noun: &'static str,
    resource: &'static str,
    kind: &'static str,
}

const CONFIG_MAP: Source = Source { noun: "configmap", resource: "configmaps", kind: "ConfigMap" };
const SECRET: Source = Source { noun: "secret", resource: "secrets", kind: "Secret" };

/// Why the container cannot be made (`configmap "x" not found`, `couldn't
/// find key k in ConfigMap ns/x`), or None when everything it needs is
/// there or optional. Never inlined: only a pod whose environment reads
/// objects comes here.
fn config_error(client: &mut Client<'_>, namespace: &str, c: &Value) -> Option<String> {
    let mut read = |source: &Source, name: &str| -> Result<Value, String> {
        let r = client.get(&format!("/api/v1/namespaces/{namespace}/{}/{name}", source.resource));
        match r.status {
            200 => Ok(serde_json::from_slice(&r.body).unwrap_or(Value::Null)),
            404 => Err(format!("{} {name:?} not found", source.noun)),
            _ => Err(format!("failed to get {} {namespace}/{name}", source.noun)),
        }
    };
    let optional = |r: &Value| r["optional"].as_bool() == Some(true);
    for from in c["envFrom"].as_array().into_iter().flatten() {
        for (field, source) in [("configMapRef", &CONFIG_MAP), ("secretRef", &SECRET)] {
            let Some(r) = from.get(field).filter(|r| r.is_object()) else { continue };
            match read(source, r["name"].as_str().unwrap_or("")) {
                Err(_) if optional(r) => {}
                Err(e) => return Some(e),
                Ok(_) => {}
            }
        }
    }
    for var in c["env"].as_array().into_iter().flatten() {
        for (field, source) in [("configMapKeyRef", &CONFIG_MAP), ("secretKeyRef", &SECRET)] {
            let Some(r) = var["valueFrom"].get(field).filter(|r| r.is_object()) else { continue };
            let (name, key) = (r["name"].as_str().unwrap_or(""), r["key"].as_str().unwrap_or(""));
            match read(source, name) {
                Err(_) if optional(r) => {}
                Err(e) => return Some(e),
                Ok(obj) if obj["data"].get(key).is_none() && !optional(r) => {
                    return Some(format!("couldn't find key {key} in {} {namespace}/{name}", source.kind));
                }
                Ok(_) => {}
            }
        }
    }
    None
}

/// The status of container `c` that could not be made, noted in `unmade`
/// (its name and the events to tell) for `tell`. Never inlined, as
/// `problem`.
#[inline(never)]
pub(super) fn unmade(c: &Value, problem: Problem, unmade: &mut Vec<(String, Problem)>) -> Value {
    let name = c["name"].as_str().unwrap_or("");
    let status = json!({"name": name, "state": {"waiting": {"reason": problem.reason,
        "message": problem.message}}, "lastState": {}, "ready": false, "restartCount": 0,
        "image": c["image"], "imageID": "", "started": false});
    unmade.push((name.to_string(), problem));
    status
}

/// The kubelet's events for the containers it could not make; when it
/// tries them again, if any.
pub(super) fn tell(
    recorder: &mut Recorder,
    client: &mut Client<'_>,
    pod: &Value,
    unmade: &[(String, Problem)],
) -> Option<i64> {
    if unmade.is_empty() {
        return None;
    }
    told(recorder, client, pod, unmade)
}

#[inline(never)]
fn told(recorder: &mut Recorder, client: &mut Client<'_>, pod: &Value, unmade: &[(String, Problem)]) -> Option<i64> {
    for (name, problem) in unmade {
        let field = format!("spec.containers{{{name}}}");
        for (t, reason, message) in &problem.events {
            recorder.event(client, pod, ("v1", "Pod"), &field, *t, reason, message);
        }
    }
    unmade.iter().map(|(_, p)| p.again).min().map(|ms| client.now_millis() + ms)
}

#[cfg(test)]
mod tests {
    use super::{reference_error, unreachable_registry};

    #[test]
    fn image_references_parse_as_the_runtime_parses_them() {
        for ok in [
            "nginx",
            "nginx:1.27",
            "busybox:1.28",
            "registry.k8s.io/pause:3.10",
            "localhost:5000/app",
            "quay.io/org/app@sha256:0123456789abcdef0123456789abcdef",
            "my_org/app-x.y:v1_2",
            "Registry.Example/app",
        ] {
            assert_eq!(reference_error(ok), None, "{ok}");
        }
        assert_eq!(
            reference_error("NGINX").as_deref(),
            Some("invalid reference format: repository name (library/NGINX) must be lowercase")
        );
        assert_eq!(
            reference_error("example.com/MyApp:1").as_deref(),
            Some("invalid reference format: repository name (MyApp) must be lowercase")
        );
        for bad in ["nginx:", "nginx::1", "ngi nx", "nginx:-x", "-nginx", "org//app", "nginx@sha256"] {
            assert_eq!(reference_error(bad).as_deref(), Some("invalid reference format"), "{bad}");
        }
        assert_eq!(unreachable_registry("registry.invalid/app:1"), Some("registry.invalid"));
        assert_eq!(unreachable_registry("invalid:5000/app"), Some("invalid:5000"));
        for reachable in ["invalid/app", "nginx", "registry.example.com/invalid", "quay.io/x.invalid"] {
            assert_eq!(unreachable_registry(reachable), None, "{reachable}");
        }
    }
}
