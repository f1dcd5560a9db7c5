//! The ResourceQuota admission (on in every cluster): a write in a
//! namespace with quotas is charged to each quota that tracks what it
//! uses (the quota's `status.hard` names it, and the object is in the
//! quota's scopes), refused with upstream's 403 when that would take a
//! quota past its hard amount, and otherwise recorded at once in the
//! quota's `status.used` (a write of `/status` as `kube-apiserver`, as
//! upstream's admission writes through its loopback client). A quota whose
//! status the controller has not filled yet holds nothing; one that
//! tracks a resource it has no usage for refuses the write until it has.
//! What each object uses is `crate::quota`'s; the objects themselves are
//! `kinds/resource_quota.rs`.

use std::sync::Arc;

use serde_json::{json, Value};

use super::keys;
use super::options::{Subresource, WriteOptions};
use super::resource::ResourceType;
use super::store::Recorded;
use super::Registry;
use crate::api::quantity::Quantity;
use crate::api::Status;
use crate::quota::{amounts, masked, written, Evaluator, Usage};
use crate::sort::Order;
use crate::storage::{ListStart, Storage};

/// Where ResourceQuotas are stored.
const QUOTA_KEYS: &str = "/core/resourcequotas/";

/// `a=1,b=2`, in name order (upstream's `prettyPrint`).
fn listed(u: &Usage) -> String {
    u.iter().map(|(k, q)| format!("{k}={q}")).collect::<Vec<_>>().join(",")
}

impl<S: Storage> Registry<S> {
    /// The namespace's quotas (and their resource).
    fn quotas(&self, namespace: &str) -> (Option<Arc<ResourceType>>, Vec<Value>) {
        let Some(rt) = self.resources.lookup("", "v1", "resourcequotas").cloned() else { return (None, Vec::new()) };
        debug_assert_eq!(keys::resource_prefix(&rt), QUOTA_KEYS);
        let prefix = keys::prefix(&rt, Some(namespace));
        let page = self.storage.list(&prefix, self.storage.revision(), &ListStart::Beginning, None, None);
        (Some(rt), page.map(|p| p.items.iter().map(|o| o.value()).collect()).unwrap_or_default())
    }

    /// Charges a create (`old` None) or an update of the object `new` to
    /// the namespace's quotas, or refuses it (403, `shown_name` as the
    /// object's name in the message). A dry run is checked, not charged.
    pub(super) fn admit_quota(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        new: &Value,
        old: Option<&Value>,
        shown_name: &str,
        dry_run: bool,
    ) -> Result<(), Status> {
        // What every write asks, answered without a list when the cluster
        // has no quota at all (`quotas_live`).
        if namespace.is_empty() || !self.quotas_live() {
            return Ok(());
        }
        self.charge_quotas(rt, namespace, new, old, shown_name, dry_run)
    }

    /// Whether any ResourceQuota lives now: the answer found at an earlier
    /// revision when no quota was written since (a scan of the events
    /// since then, usually one), else one search of the live keys.
    fn quotas_live(&self) -> bool {
        let head = self.storage.revision();
        let quota = |key: &str| key.starts_with(QUOTA_KEYS);
        let known = match self.quotas_at.get() {
            Some((at, live)) if at == head || self.storage.written_since(at, &quota) == Ok(false) => live,
            _ => self.storage.has_live(QUOTA_KEYS),
        };
        self.quotas_at.set(Some((head, known)));
        known
    }

    /// `admit_quota` where quotas exist (apart, so that the check every
    /// write makes stays small in the page's first module part).
    #[inline(never)]
    fn charge_quotas(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        new: &Value,
        old: Option<&Value>,
        shown_name: &str,
        dry_run: bool,
    ) -> Result<(), Status> {
        let (Some(quota_rt), quotas) = self.quotas(namespace) else { return Ok(()) };
        let Some(eval) = Evaluator::of(rt.group(), rt.resource()) else { return Ok(()) };
        if !eval.handles(old.is_none(), "", new, old) {
            return Ok(());
        }
        let forbidden = |why: String| Status::forbidden(rt.group(), rt.resource(), shown_name, &why);
        let name_of = |q: &Value| q.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
        // The quotas this write concerns, in name order (as listed).
        let mut applying: Vec<&Value> = Vec::new();
        for q in &quotas {
            let hard = q.pointer("/status/hard").and_then(Value::as_object);
            let matched = eval.matching(hard.into_iter().flatten().map(|(k, _)| k.as_str()));
            if matched.is_empty() || !eval.in_scopes(q, new) {
                continue;
            }
            if let Some(why) = eval.constraints(&matched, new) {
                return Err(forbidden(format!("failed quota: {}: {why}", name_of(q))));
            }
            let used = q.pointer("/status/used").and_then(Value::as_object);
            let mut unknown: Vec<&str> =
                matched.iter().copied().filter(|k| used.is_none_or(|u| !u.contains_key(*k))).collect();
            if !unknown.is_empty() {
                unknown.order();
                return Err(forbidden(format!(
                    "status unknown for quota: {}, resources: {}",
                    name_of(q),
                    unknown.join(",")
                )));
            }
            applying.push(q);
        }
        if applying.is_empty() {
            return Ok(());
        }
        let now = self.now.0;
        let mut delta = eval.usage(new, now);
        if let Some(old) = old.filter(|o| o.pointer("/metadata/resourceVersion").is_some()) {
            for (k, q) in eval.usage(old, now) {
                let d = delta.entry(k).or_insert(Quantity::ZERO);
                d.sub(q);
                // A pod's resources may only grow here.
                if eval == Evaluator::Pods && d.milli < 0 {
                    d.milli = 0;
                }
            }
        }
        delta.retain(|_, q| q.milli != 0);
        if delta.is_empty() {
            return Ok(());
        }
        let mut charged: Vec<(String, Usage)> = Vec::new();
        for q in applying {
            let hard = amounts(q.pointer("/status/hard"));
            let used = amounts(q.pointer("/status/used"));
            let requested = masked(&delta, &|k| hard.contains_key(k));
            let mut new_used = used.clone();
            for (k, r) in &requested {
                new_used.entry(k.clone()).or_insert(Quantity::ZERO).add(*r);
            }
            let exceeded: Vec<&String> =
                requested.keys().filter(|k| new_used[*k].milli > hard.get(*k).map_or(i128::MAX, |h| h.milli)).collect();
            if !exceeded.is_empty() {
                let only = |u: &Usage| masked(u, &|k| exceeded.iter().any(|e| e.as_str() == k));
                return Err(forbidden(format!(
                    "exceeded quota: {}, requested: {}, used: {}, limited: {}",
                    name_of(q),
                    listed(&only(&requested)),
                    listed(&only(&used)),
                    listed(&only(&hard))
                )));
            }
            if new_used != used {
                charged.push((name_of(q), new_used));
            }
        }
        if dry_run {
            return Ok(());
        }
        for (name, used) in charged {
            let Some(mut quota) = quotas.iter().find(|q| name_of(q) == name).cloned() else { continue };
            if let Value::Object(o) = &mut quota {
                let hard = amounts(o.get("status").and_then(|s| s.get("hard")));
                o.insert("status".into(), json!({"hard": written(&hard), "used": written(&used)}));
                o.insert("kind".into(), json!("ResourceQuota"));
                o.insert("apiVersion".into(), json!("v1"));
            }
            let opts = WriteOptions {
                field_manager: "kube-apiserver".into(),
                subresource: Subresource::Status,
                ..Default::default()
            };
            self.update_value(&quota_rt, namespace, &name, quota, &opts, Recorded::Update, None)?;
        }
        Ok(())
    }
}
