//! The node IPAM controller (kube-controller-manager's `nodeipam` with
//! `--allocate-node-cidrs`), a client: gives each Node without one a Pod
//! range (`spec.podCIDR`, `spec.podCIDRs`) cut from `--cluster-cidr` in
//! `--node-cidr-mask-size` pieces, by a strategic merge patch as
//! upstream's range allocator sends it. Ranges already on nodes are taken;
//! the next one is looked for after the last handed out (round robin, as
//! upstream's CIDR set does), so a deleted node's range is not reused at
//! once. When none is free the node gets a `CIDRNotAvailable` event.

use std::collections::BTreeSet;

use std::sync::Arc;

use serde_json::{json, Value};

use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::meta_str;
use super::{Controller, Progress};
use crate::network::PodRanges;

pub struct NodeIpamController {
    nodes: Informer,
    ranges: PodRanges,
    /// The node range index the next search starts at.
    next: u32,
    /// Nodes already told no range is free (by uid).
    reported: BTreeSet<String>,
    recorder: Recorder,
}

impl NodeIpamController {
    pub fn new(ranges: PodRanges) -> NodeIpamController {
        NodeIpamController {
            nodes: Informer::new("/api/v1/nodes"),
            ranges,
            next: 0,
            reported: BTreeSet::new(),
            recorder: Recorder::new("cidrAllocator", ""),
        }
    }

    /// The index of a node range in the cluster range, if it is one.
    fn index_of(&self, cidr: &str) -> Option<u32> {
        let net: ipnet::Ipv4Net = cidr.parse().ok()?;
        let cluster = &self.ranges.cluster_cidr;
        if net.prefix_len() != self.ranges.node_mask || !cluster.contains(&net) {
            return None;
        }
        let offset = u32::from(net.network()) - u32::from(cluster.network());
        Some(offset >> (32 - u32::from(self.ranges.node_mask)))
    }
}

impl Default for NodeIpamController {
    fn default() -> Self {
        NodeIpamController::new(PodRanges::default())
    }
}

impl Controller for NodeIpamController {
    fn name(&self) -> &'static str {
        "nodeipam"
    }

    fn service_account(&self) -> &'static str {
        "node-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        if !self.nodes.sync(client) {
            return Progress::default();
        }
        let nodes: Vec<Arc<Value>> = self.nodes.shared().cloned().collect();
        let mut taken: BTreeSet<u32> =
            nodes.iter().filter_map(|n| n["spec"]["podCIDR"].as_str()).filter_map(|c| self.index_of(c)).collect();
        let total = self.ranges.node_ranges();
        for node in nodes.iter().filter(|n| n["spec"]["podCIDR"].as_str().unwrap_or("").is_empty()) {
            if !node["metadata"]["deletionTimestamp"].is_null() {
                continue;
            }
            let free = (0..total).map(|i| (self.next + i) % total).find(|i| !taken.contains(i));
            let Some((i, range)) = free.and_then(|i| Some((i, self.ranges.node_range(i)?))) else {
                let uid = meta_str(node, "uid").to_string();
                if self.reported.insert(uid) {
                    let message = format!("Node {} status is now: CIDRNotAvailable", meta_str(node, "name"));
                    self.recorder.event(
                        client,
                        node,
                        ("v1", "Node"),
                        "",
                        EventType::Normal,
                        "CIDRNotAvailable",
                        &message,
                    );
                }
                continue;
            };
            let body = json!({"spec": {"podCIDR": range.to_string(), "podCIDRs": [range.to_string()]}});
            let path = format!("/api/v1/nodes/{}", meta_str(node, "name"));
            if client.write("PATCH", &path, "application/strategic-merge-patch+json", &body).status == 200 {
                taken.insert(i);
                self.next = (i + 1) % total;
            }
        }
        Progress { writes: client.writes - before }
    }
}
