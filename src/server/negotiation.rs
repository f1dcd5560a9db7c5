//! Content negotiation: the Accept header parsed into media ranges with
//! parameters and q-values, and the first one we can serve chosen.

use crate::api::media_type;
use crate::sort::Order;

/// What a discovery document can be rendered as (resources negotiate an
/// `Output` instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    Json,
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
    out.order_by(|a, b| b.q.partial_cmp(&a.q).unwrap_or(std::cmp::Ordering::Equal));
    out
}

fn is_json(r: &MediaRange) -> bool {
    matches!(r.media_type.as_str(), "*/*" | "application/*" | "application/json")
}

/// How a resource response is serialized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Json,
    /// Objects, lists and errors only: YAML has no watch framing.
    Yaml,
    /// `application/vnd.kubernetes.protobuf`: the `k8s\0` envelope, or
    /// length-prefixed `WatchEvent` frames for a watch.
    Protobuf,
}

impl Encoding {
    pub fn content_type(self) -> &'static str {
        match self {
            Encoding::Json => media_type::JSON,
            Encoding::Yaml => media_type::YAML,
            Encoding::Protobuf => PROTOBUF,
        }
    }
}

pub use crate::api::media_type::PROTOBUF;

/// A server-side conversion asked for with `;as=…;g=meta.k8s.io;v=…`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convert {
    Table,
    PartialObjectMetadata,
    PartialObjectMetadataList,
}

/// What a resource response is rendered as: an encoding, and perhaps a
/// conversion into a meta.k8s.io kind (`v1beta1` when asked in that version).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    pub encoding: Encoding,
    pub convert: Option<Convert>,
    pub v1beta1: bool,
}

impl Output {
    pub const JSON: Output = Output { encoding: Encoding::Json, convert: None, v1beta1: false };

    /// `meta.k8s.io/v1` (or v1beta1) for a converted response.
    pub fn meta_api_version(&self) -> &'static str {
        if self.v1beta1 {
            "meta.k8s.io/v1beta1"
        } else {
            "meta.k8s.io/v1"
        }
    }
}

/// What a resource request may be answered with: the first range (in
/// preference order) naming an encoding we have for this kind and, when it
/// asks for a conversion, one we serve. `protobuf` says whether the kind has
/// a protobuf form; a watch has no YAML form, and converts single objects
/// (so `as=PartialObjectMetadataList` does not apply to it).
pub fn negotiate_output(header: Option<&str>, watch: bool, protobuf: bool) -> Option<Output> {
    for r in parse_accept(header) {
        let encoding = match r.media_type.as_str() {
            "*/*" | "application/*" | "application/json" => Encoding::Json,
            "application/yaml" if !watch => Encoding::Yaml,
            PROTOBUF if protobuf => Encoding::Protobuf,
            _ => continue,
        };
        let convert = match (r.param("as"), r.param("g"), r.param("v")) {
            (None, _, _) => None,
            (Some(kind), Some("meta.k8s.io"), Some(v @ ("v1" | "v1beta1"))) => {
                let c = match kind {
                    "Table" => Convert::Table,
                    "PartialObjectMetadata" => Convert::PartialObjectMetadata,
                    "PartialObjectMetadataList" if !watch => Convert::PartialObjectMetadataList,
                    _ => continue,
                };
                // A Table's cells have no protobuf form.
                if c == Convert::Table && encoding == Encoding::Protobuf {
                    continue;
                }
                return Some(Output { encoding, convert: Some(c), v1beta1: v == "v1beta1" });
            }
            _ => continue,
        };
        return Some(Output { encoding, convert, v1beta1: false });
    }
    None
}

/// The 406 message for a resource, listing its serializer's media types:
/// protobuf among them even for a custom resource, which cannot be encoded
/// so (upstream lists it there too: its serializer only transforms to
/// protobuf, as PartialObjectMetadata).
pub fn resource_not_acceptable() -> String {
    format!("only the following media types are accepted: application/json, application/yaml, {PROTOBUF}")
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

    fn out(h: &str, watch: bool, proto: bool) -> Option<(Encoding, Option<Convert>, bool)> {
        negotiate_output(Some(h), watch, proto).map(|o| (o.encoding, o.convert, o.v1beta1))
    }

    #[test]
    fn resources_may_be_yaml_but_watches_are_not() {
        assert_eq!(out("application/yaml", false, true), Some((Encoding::Yaml, None, false)));
        assert_eq!(out("application/yaml;q=0.5, application/json", false, true), Some((Encoding::Json, None, false)));
        assert_eq!(out("application/yaml", true, true), None);
        assert_eq!(out("application/yaml, application/json", true, true), Some((Encoding::Json, None, false)));
        assert_eq!(out("text/html", false, true), None);
        assert_eq!(negotiate_output(None, false, true), Some(Output::JSON));
    }

    #[test]
    fn conversions_need_group_version_and_a_kind_we_serve() {
        const KUBECTL_GET: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(out(KUBECTL_GET, false, true), Some((Encoding::Json, Some(Convert::Table), false)));
        assert_eq!(
            out("application/json;as=Table;v=v1beta1;g=meta.k8s.io", true, true),
            Some((Encoding::Json, Some(Convert::Table), true))
        );
        // No group or version, an unknown kind, another group: skipped.
        assert_eq!(out("application/json;as=Table", false, true), None);
        assert_eq!(out("application/json;as=Table;g=meta.k8s.io;v=v2", false, true), None);
        assert_eq!(
            out("application/json;as=Pod;g=meta.k8s.io;v=v1, application/yaml", false, true),
            Some((Encoding::Yaml, None, false))
        );
        assert_eq!(
            out("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", false, true),
            Some((Encoding::Protobuf, Some(Convert::PartialObjectMetadataList), false))
        );
        // Tables have no protobuf form; watches convert single objects.
        assert_eq!(out("application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1", false, true), None);
        assert_eq!(out("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", true, true), None);
        assert_eq!(
            out("application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", false, true),
            Some((Encoding::Yaml, Some(Convert::PartialObjectMetadata), false))
        );
    }

    #[test]
    fn protobuf_only_for_kinds_that_have_it() {
        assert_eq!(out("application/vnd.kubernetes.protobuf", false, true), Some((Encoding::Protobuf, None, false)));
        assert_eq!(out("application/vnd.kubernetes.protobuf", true, true), Some((Encoding::Protobuf, None, false)));
        assert_eq!(out("application/vnd.kubernetes.protobuf", false, false), None);
        assert_eq!(
            out("application/vnd.kubernetes.protobuf, application/json", false, false),
            Some((Encoding::Json, None, false))
        );
        // q-values outrank order; wildcards mean JSON; q=0 refuses.
        assert_eq!(
            out("application/json;q=0.5, application/vnd.kubernetes.protobuf", false, true),
            Some((Encoding::Protobuf, None, false))
        );
        assert_eq!(out("text/plain, */*;q=0.1", false, true), Some((Encoding::Json, None, false)));
        assert_eq!(out("application/json;q=0", false, true), None);
    }

    #[test]
    fn orders_by_q() {
        let r = parse_accept(Some("text/plain;q=0.5, application/json;q=0.9, application/yaml"));
        let types: Vec<&str> = r.iter().map(|m| m.media_type.as_str()).collect();
        assert_eq!(types, ["application/yaml", "application/json", "text/plain"]);
    }
}
