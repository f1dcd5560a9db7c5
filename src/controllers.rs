//! The cluster's own clients: controllers that reconcile what is stored,
//! as kube-controller-manager's do. Each is a client of the core and
//! nothing more (`shared/guide/architecture.md`): it reads through
//! informers (list, then watch with bookmarks, relist on 410) and writes
//! through requests carrying its own identity, so everything it does shows
//! on the wire and replays deterministically.
//!
//! A door owns a `Server` and a `Controllers` and calls `settle` after
//! each request it served, and `tick` as simulated time moves (a
//! controller waiting for a time, as a kubelet for a grace period to end,
//! says when in `next_wake`): every running controller catches its
//! informers up and reconciles until none has anything left to do. `pause` stops them; `step` runs one reconcile of
//! one controller (for teaching what a controller does next).

pub mod backoff;
pub mod client;
pub mod cluster_role_aggregation;
pub mod cron_job;
pub mod daemon_set;
pub mod deployment;
pub mod disruption;
pub mod endpoints;
pub mod events;
pub mod garbage_collector;
pub mod history;
pub mod horizontal_pod_autoscaler;
pub mod informer;
pub mod job;
pub mod kubelet;
pub mod namespace;
pub mod node_ipam;
pub mod object;
pub mod provisioner;
pub mod replica_set;
pub mod resource_quota;
pub mod root_ca;
pub mod scheduler;
pub mod service_account;
pub mod stateful_set;
pub mod taint_eviction;
pub mod volumes;

use std::collections::BTreeMap;

pub use client::{Client, Exchange, Identity};
pub use informer::Informer;

use crate::clock::SimTime;
use crate::server::Server;

/// What one reconcile did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Requests that wrote (a controller that wrote may have more to do).
    pub writes: usize,
}

/// A controller: informers it reads and a reconcile over what they hold.
pub trait Controller: Send {
    /// The name kube-controller-manager knows it by (`--controllers`).
    fn name(&self) -> &'static str;

    /// The service account it runs as (its identity on the wire).
    fn service_account(&self) -> &'static str;

    /// Who it is on the wire (a kube-controller-manager controller unless
    /// it says otherwise).
    fn identity(&self) -> Identity {
        Identity::controller_manager(self.service_account())
    }

    /// One pass over what its informers hold; writes through `client`.
    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress;

    /// The simulated time at which it has work to do though nothing it
    /// watches changed (a grace period ending), if any.
    fn next_wake(&self) -> Option<SimTime> {
        None
    }
}

/// Every controller a door runs, each with its client identity.
pub struct Controllers {
    running: Vec<(Box<dyn Controller>, Identity)>,
    paused: bool,
    /// The next controller `step` runs.
    next: usize,
    /// Writes made per controller, for the page and the benchmarks.
    pub writes: BTreeMap<&'static str, usize>,
    /// The requests sent, when recording (`take_log`).
    log: Option<Vec<Exchange>>,
    /// Watch objects parsed once for all informers, within one settle.
    cache: informer::ParseCache,
}

/// The controllers kube-controller-manager runs that kubesim has, by name,
/// then the scheduler and the nodes' kubelets.
pub const ALL: &[&str] = &[
    "nodeipam",
    "namespace",
    "garbage-collector",
    "deployment",
    "replicaset",
    "replicationcontroller",
    "daemonset",
    "statefulset",
    "job",
    "cronjob",
    "disruption",
    "horizontal-pod-autoscaler",
    "taint-eviction-controller",
    "resourcequota",
    "root-ca-cert-publisher",
    "serviceaccount",
    "clusterrole-aggregation",
    "persistentvolume-binder",
    "pvc-protection",
    "pv-protection",
    "local-path-provisioner",
    "endpoint",
    "endpointslice",
    "scheduler",
    "kubelet",
];

/// The controllers that are not kube-controller-manager's: their own
/// programs in a cluster.
const NOT_CONTROLLER_MANAGER: &[&str] = &["scheduler", "kubelet", "local-path-provisioner"];

/// The controller manager's flags that shape what the controllers do.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// `--cluster-cidr` and `--node-cidr-mask-size`.
    pub pod_ranges: crate::network::PodRanges,
}

/// How many reconcile rounds `settle` runs before it stops (a controller
/// that keeps writing is a bug; the cap keeps a door answering).
const MAX_ROUNDS: usize = 1_000;

/// How many stops a clock jump makes at the controllers' wake times
/// before it makes the rest at once (a day of a CronJob every minute
/// would be 1,440).
const MAX_JUMP_STEPS: usize = 1_000;

impl Controllers {
    /// The controllers named (`ALL` for every one; none for an empty list).
    pub fn new(names: &[&str]) -> Result<Controllers, String> {
        Controllers::configured(names, &Config::default())
    }

    /// The controllers named, with the controller manager's flags.
    pub fn configured(names: &[&str], config: &Config) -> Result<Controllers, String> {
        let mut running: Vec<(Box<dyn Controller>, Identity)> = Vec::new();
        for name in names {
            let c: Box<dyn Controller> = match *name {
                "nodeipam" => Box::new(node_ipam::NodeIpamController::new(config.pod_ranges.clone())),
                "namespace" => Box::new(namespace::NamespaceController::default()),
                "garbage-collector" => Box::new(garbage_collector::GarbageCollector::default()),
                "deployment" => Box::new(deployment::DeploymentController::default()),
                "replicaset" => Box::new(replica_set::ReplicaSetController::new(&replica_set::REPLICA_SETS)),
                "replicationcontroller" => {
                    Box::new(replica_set::ReplicaSetController::new(&replica_set::REPLICATION_CONTROLLERS))
                }
                "daemonset" => Box::new(daemon_set::DaemonSetController::default()),
                "statefulset" => Box::new(stateful_set::StatefulSetController::default()),
                "job" => Box::new(job::JobController::default()),
                "cronjob" => Box::new(cron_job::CronJobController::default()),
                "disruption" => Box::new(disruption::DisruptionController::default()),
                "horizontal-pod-autoscaler" => {
                    Box::new(horizontal_pod_autoscaler::HorizontalPodAutoscalerController::default())
                }
                "taint-eviction-controller" => Box::new(taint_eviction::TaintEvictionController::default()),
                "resourcequota" => Box::new(resource_quota::ResourceQuotaController::default()),
                "root-ca-cert-publisher" => Box::new(root_ca::RootCaPublisher::default()),
                "serviceaccount" => Box::new(service_account::ServiceAccounts::default()),
                "clusterrole-aggregation" => Box::new(cluster_role_aggregation::ClusterRoleAggregation::default()),
                "persistentvolume-binder" => Box::new(volumes::VolumeBinder::default()),
                "pvc-protection" => Box::new(volumes::PvcProtection::default()),
                "pv-protection" => Box::new(volumes::PvProtection::default()),
                "local-path-provisioner" => Box::new(provisioner::LocalPathProvisioner::default()),
                "endpoint" => Box::new(endpoints::EndpointsController::default()),
                "endpointslice" => Box::new(endpoints::EndpointSliceController::default()),
                "scheduler" => Box::new(scheduler::Scheduler::default()),
                "kubelet" => Box::new(kubelet::Kubelets::default()),
                other => return Err(format!("unknown controller {other:?} (known: {})", ALL.join(", "))),
            };
            let identity = c.identity();
            running.push((c, identity));
        }
        Ok(Controllers { running, ..Controllers::none() })
    }

    /// None: a bare API server (as envtest users want).
    pub fn none() -> Controllers {
        Controllers {
            running: Vec::new(),
            paused: false,
            next: 0,
            writes: BTreeMap::new(),
            log: None,
            cache: Default::default(),
        }
    }

    /// From a `--controllers` value: `all`, `none`, or names separated by
    /// commas.
    pub fn parse(spec: &str, config: &Config) -> Result<Controllers, String> {
        match spec {
            "all" => Controllers::configured(ALL, config),
            "none" | "" => Ok(Controllers::none()),
            list => Controllers::configured(&list.split(',').map(str::trim).collect::<Vec<_>>(), config),
        }
    }

    /// Keeps every request the controllers send, for `take_log`.
    pub fn record(&mut self, on: bool) {
        self.log = on.then(Vec::new);
    }

    /// The requests sent since the last call (none unless recording).
    pub fn take_log(&mut self) -> Vec<Exchange> {
        self.log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.running.iter().map(|(c, _)| c.name()).collect()
    }

    /// Which components answer their health checks, for the server's
    /// `componentstatuses` (a door passes this on): the scheduler when it
    /// runs, the controller manager when any of its controllers does; none
    /// while paused.
    pub fn components(&self) -> crate::server::components::Components {
        let runs = |f: &dyn Fn(&str) -> bool| !self.paused && self.running.iter().any(|(c, _)| f(c.name()));
        crate::server::components::Components {
            scheduler: runs(&|n| n == "scheduler"),
            controller_manager: runs(&|n| !NOT_CONTROLLER_MANAGER.contains(&n)),
        }
    }

    pub fn is_paused(&self) -> bool {
        self.paused
    }

    pub fn pause(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// The earliest simulated time a controller waits for (unless paused).
    pub fn next_wake(&self) -> Option<SimTime> {
        if self.paused {
            return None;
        }
        self.running.iter().filter_map(|(c, _)| c.next_wake()).min_by_key(|t| t.0)
    }

    /// Settles if a controller's wake time has come; whether it did (a door
    /// calls this as simulated time passes).
    pub fn tick(&mut self, server: &mut Server) -> bool {
        match self.next_wake() {
            Some(t) if t.0 <= server.now().0 => {
                self.settle(server);
                true
            }
            _ => false,
        }
    }

    /// Runs every controller until none writes (unless paused); first,
    /// a clock jump the server left for them (`Server::step_jumps`).
    pub fn settle(&mut self, server: &mut Server) {
        let jump = server.take_jump();
        if jump > 0 {
            return self.walk(server, jump);
        }
        if self.paused {
            return;
        }
        for _ in 0..MAX_ROUNDS {
            let mut wrote = false;
            for i in 0..self.running.len() {
                wrote |= self.run_one(server, i).writes > 0;
            }
            if !wrote {
                break;
            }
        }
        self.cache.clear();
    }

    /// Moves simulated time `ms` on as if it had passed: each time a
    /// controller waits for on the way comes in turn, and they all settle
    /// there (a probe's failures, a back-off's restart, a CronJob's every
    /// schedule are seen when they happen, not summed at the end); after
    /// `MAX_JUMP_STEPS` stops, or while paused, the rest is one jump.
    #[inline(never)]
    fn walk(&mut self, server: &mut Server, ms: i64) {
        let end = server.now().plus_millis(ms);
        self.settle(server);
        for _ in 0..MAX_JUMP_STEPS {
            match self.next_wake() {
                Some(t) if t > server.now() && t < end => {
                    server.advance(t.0 - server.now().0);
                    self.settle(server);
                }
                _ => break,
            }
        }
        server.advance(end.0 - server.now().0);
        self.settle(server);
    }

    /// One reconcile of the next controller in turn, paused or not; its
    /// name and what it did.
    pub fn step(&mut self, server: &mut Server) -> Option<(&'static str, Progress)> {
        if self.running.is_empty() {
            return None;
        }
        let i = self.next % self.running.len();
        self.next = i + 1;
        let p = self.run_one(server, i);
        self.cache.clear();
        Some((self.running[i].0.name(), p))
    }

    fn run_one(&mut self, server: &mut Server, i: usize) -> Progress {
        let (controller, identity) = &mut self.running[i];
        let name = controller.name();
        let client = match self.log.as_mut() {
            Some(log) => Client::recording(server, identity, name, log),
            None => Client::new(server, identity),
        };
        let mut client = client.with_cache(&mut self.cache);
        let p = controller.reconcile(&mut client);
        *self.writes.entry(controller.name()).or_default() += p.writes;
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controllers_flag_names_all_none_or_a_list() {
        assert_eq!(Controllers::parse("all", &Config::default()).unwrap().names(), ALL);
        assert!(Controllers::parse("none", &Config::default()).unwrap().names().is_empty());
        assert_eq!(Controllers::parse("garbage-collector", &Config::default()).unwrap().names(), ["garbage-collector"]);
        assert_eq!(
            Controllers::parse("namespace, garbage-collector", &Config::default()).unwrap().names(),
            ["namespace", "garbage-collector"]
        );
        let e = Controllers::parse("ttl", &Config::default()).err().unwrap();
        assert_eq!(e, "unknown controller \"ttl\" (known: nodeipam, namespace, garbage-collector, deployment, replicaset, replicationcontroller, daemonset, statefulset, job, cronjob, disruption, horizontal-pod-autoscaler, taint-eviction-controller, resourcequota, root-ca-cert-publisher, serviceaccount, clusterrole-aggregation, persistentvolume-binder, pvc-protection, pv-protection, local-path-provisioner, endpoint, endpointslice, scheduler, kubelet)");
    }
}
