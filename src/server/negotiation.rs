//! Content negotiation: the Accept header parsed into media ranges with
//! parameters and q-values, and the first one we can serve chosen.

/// What a response can be rendered as (today: JSON and aggregated
/// discovery; the representations work adds Table, YAML, protobuf).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    Json,
    /// `application/yaml` (objects, lists and errors; not watch streams).
    Yaml,
    AggregatedDiscoveryV2,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MediaRange {
    pub media_type: String,
    pub params: Vec<(String, String)>,
    pub q: f32,
}

impl MediaRange {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Parses an Accept header; ranges come back in preference order (higher q
/// first, ties in the order given). An absent or empty header accepts all.
pub fn parse_accept(header: Option<&str>) -> Vec<MediaRange> {
    let header = header.unwrap_or("").trim();
    if header.is_empty() {
        return vec![MediaRange { media_type: "*/*".into(), params: vec![], q: 1.0 }];
    }
    let mut out: Vec<MediaRange> = header
        .split(',')
        .filter_map(|range| {
            let mut parts = range.split(';').map(str::trim);
            let media_type = parts.next()?.to_ascii_lowercase();
            if media_type.is_empty() {
                return None;
            }
            let mut q = 1.0f32;
            let mut params = Vec::new();
            for p in parts {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().trim_matches('"').to_string());
                if k == "q" {
                    q = v.parse().unwrap_or(0.0);
                } else if !k.is_empty() {
                    params.push((k, v));
                }
            }
            Some(MediaRange { media_type, params, q })
        })
        .filter(|r| r.q > 0.0)
        .collect();
    out.sort_by(|a, b| b.q.partial_cmp(&a.q).unwrap_or(std::cmp::Ordering::Equal));
    out
}

fn is_json(r: &MediaRange) -> bool {
    matches!(r.media_type.as_str(), "*/*" | "application/*" | "application/json")
}

/// What a resource request (get, list, write) may be answered with: the
/// first acceptable of JSON and YAML; a watch only streams JSON.
pub fn negotiate_resource(header: Option<&str>, watch: bool) -> Option<Representation> {
    for r in parse_accept(header) {
        if r.media_type == "application/yaml" && r.params.is_empty() && !watch {
            return Some(Representation::Yaml);
        }
        if is_json(&r) && r.param("as").is_none() {
            return Some(Representation::Json);
        }
    }
    None
}

/// Picks what to render: the first range (in preference order) whose type
/// and parameters we serve. `discovery` allows aggregated discovery.
pub fn negotiate(header: Option<&str>, discovery: bool) -> Option<Representation> {
    for r in parse_accept(header) {
        if !is_json(&r) {
            continue;
        }
        match (r.param("as"), r.param("g"), r.param("v")) {
            (None, _, _) => return Some(Representation::Json),
            (Some("APIGroupDiscoveryList"), Some("apidiscovery.k8s.io"), Some("v2")) if discovery => {
                return Some(Representation::AggregatedDiscoveryV2)
            }
            _ => continue,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECTL_DISCOVERY: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

    #[test]
    fn chooses_the_first_servable_range() {
        assert_eq!(negotiate(None, false), Some(Representation::Json));
        assert_eq!(negotiate(Some(KUBECTL_DISCOVERY), true), Some(Representation::AggregatedDiscoveryV2));
        assert_eq!(negotiate(Some(KUBECTL_DISCOVERY), false), Some(Representation::Json));
        assert_eq!(
            negotiate(
                Some("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList, application/json"),
                true
            ),
            Some(Representation::Json)
        );
        assert_eq!(
            negotiate(Some("application/json;as=Table;g=meta.k8s.io;v=v1, application/json"), false),
            Some(Representation::Json)
        );
        assert_eq!(negotiate(Some("application/json;as=Table;g=meta.k8s.io;v=v1"), false), None);
        assert_eq!(negotiate(Some("application/vnd.kubernetes.protobuf"), false), None);
        assert_eq!(negotiate(Some("application/vnd.kubernetes.protobuf, */*"), false), Some(Representation::Json));
        assert_eq!(negotiate(Some("application/json;q=0, text/plain"), false), None);
    }

    #[test]
    fn resources_may_be_yaml_but_watches_are_not() {
        assert_eq!(negotiate_resource(Some("application/yaml"), false), Some(Representation::Yaml));
        assert_eq!(
            negotiate_resource(Some("application/yaml;q=0.5, application/json"), false),
            Some(Representation::Json)
        );
        assert_eq!(negotiate_resource(Some("application/yaml"), true), None);
        assert_eq!(negotiate_resource(Some("application/yaml, application/json"), true), Some(Representation::Json));
        assert_eq!(negotiate_resource(Some("text/html"), false), None);
    }

    #[test]
    fn orders_by_q() {
        let r = parse_accept(Some("text/plain;q=0.5, application/json;q=0.9, application/yaml"));
        let types: Vec<&str> = r.iter().map(|m| m.media_type.as_str()).collect();
        assert_eq!(types, ["application/yaml", "application/json", "text/plain"]);
    }
}
