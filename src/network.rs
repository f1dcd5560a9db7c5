//! The cluster's address ranges, as the components are configured with
//! them: the API server's Service range (`--service-cluster-ip-range`,
//! kubeadm's 10.96.0.0/12) and node ports (`--service-node-port-range`,
//! 30000-32767), and the controller manager's Pod range (`--cluster-cidr`,
//! 10.244.0.0/16 as kind and flannel use) cut into per-node ranges of
//! `--node-cidr-mask-size` (24) bits.

use core::net::Ipv4Addr;

use ipnet::Ipv4Net;

/// Where Services' cluster IPs and node ports come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceRanges {
    pub cluster_ips: Ipv4Net,
    /// The lowest and highest node port, inclusive.
    pub node_ports: (i64, i64),
}

impl Default for ServiceRanges {
    fn default() -> Self {
        ServiceRanges { cluster_ips: net(Ipv4Addr::new(10, 96, 0, 0), 12), node_ports: (30_000, 32_767) }
    }
}

impl ServiceRanges {
    /// The address `n` places into the Service range (the `kubernetes`
    /// Service takes the first, kube-dns by convention the tenth).
    pub fn nth(&self, n: u32) -> Ipv4Addr {
        nth(&self.cluster_ips, n)
    }

    /// How many addresses the range hands out (all but its network and
    /// broadcast addresses).
    pub fn usable(&self) -> u32 {
        size(&self.cluster_ips).saturating_sub(2)
    }

    /// The node port range as the flag spells it (`30000-32767`).
    pub fn node_port_range(&self) -> String {
        format!("{}-{}", self.node_ports.0, self.node_ports.1)
    }
}

/// Where nodes' Pod ranges come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodRanges {
    pub cluster_cidr: Ipv4Net,
    /// The prefix length of each node's range.
    pub node_mask: u8,
}

impl Default for PodRanges {
    fn default() -> Self {
        PodRanges { cluster_cidr: net(Ipv4Addr::new(10, 244, 0, 0), 16), node_mask: 24 }
    }
}

impl PodRanges {
    /// The `i`th node range, if the cluster range has that many.
    pub fn node_range(&self, i: u32) -> Option<Ipv4Net> {
        self.cluster_cidr.subnets(self.node_mask).ok()?.nth(i as usize)
    }

    /// How many node ranges the cluster range holds.
    pub fn node_ranges(&self) -> u32 {
        1u32.checked_shl(u32::from(self.node_mask - self.cluster_cidr.prefix_len())).unwrap_or(u32::MAX)
    }
}

fn net(addr: Ipv4Addr, prefix: u8) -> Ipv4Net {
    Ipv4Net::new(addr, prefix).unwrap_or_default()
}

fn size(n: &Ipv4Net) -> u32 {
    1u32.checked_shl(u32::from(32 - n.prefix_len())).unwrap_or(u32::MAX)
}

/// The address `n` places after a range's network address.
pub fn nth(n: &Ipv4Net, i: u32) -> Ipv4Addr {
    Ipv4Addr::from(u32::from(n.network()).wrapping_add(i))
}

/// Parses a range flag: an IPv4 CIDR whose address is its network
/// address, with a prefix between `min` and `max` (what the components
/// accept differs; IPv6 and dual-stack are not simulated).
pub fn parse_cidr(flag: &str, text: &str, min: u8, max: u8) -> Result<Ipv4Net, String> {
    let n: Ipv4Net = text.parse().map_err(|_| format!("{flag}: {text:?} is not an IPv4 CIDR (like 10.96.0.0/12)"))?;
    if n.addr() != n.network() {
        return Err(format!("{flag}: {text} is not a network address (did you mean {}?)", n.trunc()));
    }
    if n.prefix_len() < min || n.prefix_len() > max {
        return Err(format!("{flag}: the prefix of {text} must be between /{min} and /{max}"));
    }
    Ok(n)
}

/// Parses `--service-node-port-range` (`30000-32767`).
pub fn parse_port_range(text: &str) -> Result<(i64, i64), String> {
    let bad = || format!("--service-node-port-range: {text:?} is not a port range (like 30000-32767)");
    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
    let (lo, hi): (i64, i64) = (lo.trim().parse().map_err(|_| bad())?, hi.trim().parse().map_err(|_| bad())?);
    if !(1..=65_535).contains(&lo) || !(lo..=65_535).contains(&hi) {
        return Err(bad());
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_number_their_addresses_and_node_ranges() {
        let s = ServiceRanges::default();
        assert_eq!((s.nth(1).to_string(), s.nth(10).to_string()), ("10.96.0.1".into(), "10.96.0.10".into()));
        assert_eq!(s.usable(), (1 << 20) - 2);
        let p = PodRanges::default();
        assert_eq!(p.node_range(2).map(|n| n.to_string()).as_deref(), Some("10.244.2.0/24"));
        assert_eq!((p.node_ranges(), p.node_range(256)), (256, None));
    }

    #[test]
    fn flags_are_checked() {
        assert!(parse_cidr("--cluster-cidr", "10.200.0.0/16", 8, 30).is_ok());
        assert!(parse_cidr("--cluster-cidr", "10.200.0.1/16", 8, 30).unwrap_err().contains("10.200.0.0/16"));
        assert!(parse_cidr("--service-cluster-ip-range", "10.0.0.0/8", 12, 28).is_err());
        assert!(parse_cidr("--x", "fd00::/108", 12, 28).is_err());
        assert_eq!(parse_port_range("20000-22767"), Ok((20_000, 22_767)));
        assert!(parse_port_range("3-2").is_err());
    }
}
