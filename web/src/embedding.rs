//! What a `<kube-sim>` element asks for (its attributes, read by
//! `pkg/kube-sim.js` and handed to `mountKubeSim`): which panels, a lesson,
//! the language, the seed, a cluster shared by name, and objects to start
//! with. Plain logic: the component that mounts it is in
//! `components/element.rs`.

use crate::lessons::Lang;

/// The short names an element's `panels` attribute uses, and the page's
/// panel each stands for (the ids of `lessons::PANELS`).
pub const PANEL_NAMES: &[(&str, &str)] = &[
    ("kubectl", "command-panel"),
    ("lanes", "lanes-panel"),
    ("inspector", "inspector-panel"),
    ("owners", "owners-panel"),
    ("console", "console-panel"),
    ("log", "log-panel"),
    ("timeline", "timeline-panel"),
    ("pager", "pager-panel"),
    ("explorer", "explorer-panel"),
    ("fairness", "fairness-panel"),
    ("metrics", "metrics-panel"),
];

/// What an element shows when its `panels` attribute is absent and it
/// has no lesson.
pub const DEFAULT_PANELS: &[&str] = &["command-panel", "lanes-panel"];

/// The element's attributes as `kube-sim.js` reads them, by name (absent
/// ones empty): `lesson` is an id, `lessonText` a lesson's YAML (inline
/// or fetched from a URL), `base` where the element's files are.
#[derive(Clone, Debug, PartialEq, Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Attributes {
    pub panels: String,
    pub lesson: String,
    pub lesson_text: String,
    pub lang: String,
    pub seed: String,
    pub cluster: String,
    pub scenario: String,
    pub base: String,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct EmbedOptions {
    /// Panel ids, in the order given (empty: the lesson's, or the default).
    pub panels: Vec<&'static str>,
    pub lesson: Option<String>,
    /// A lesson's own text (given inline or by URL), instead of an id.
    pub lesson_text: Option<String>,
    /// None: the browser's language.
    pub lang: Option<Lang>,
    pub seed: u64,
    /// Elements with the same name share one cluster.
    pub cluster: Option<String>,
    /// YAML or JSON objects created when the cluster is made.
    pub scenario: Option<String>,
    /// Where the element's files are (`lessons/`, the schema), ending in `/`.
    pub base: String,
}

/// The panel ids of a comma- or space-separated list of short names (or
/// of the ids themselves); an unknown name is an error that lists the
/// known ones.
pub fn parse_panels(list: &str) -> Result<Vec<&'static str>, String> {
    let mut out: Vec<&'static str> = Vec::new();
    for name in list.split([',', ' ']).map(str::trim).filter(|n| !n.is_empty()) {
        let Some((_, id)) = PANEL_NAMES.iter().find(|(short, id)| name == *short || name == *id) else {
            let known: Vec<&str> = PANEL_NAMES.iter().map(|(s, _)| *s).collect();
            return Err(format!("<kube-sim>: no panel {name:?} (panels are {})", known.join(", ")));
        };
        if !out.contains(id) {
            out.push(id);
        }
    }
    Ok(out)
}

impl EmbedOptions {
    /// From the element's attributes; an attribute that makes no sense
    /// is an error naming it.
    pub fn from_attributes(a: &Attributes) -> Result<EmbedOptions, String> {
        let Attributes { panels, lesson, lesson_text, lang, seed, cluster, scenario, base } = a;
        let some = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_string());
        let seed = match seed.trim() {
            "" => 1,
            s => s.parse().map_err(|_| format!("<kube-sim>: seed {s:?} is not a whole number"))?,
        };
        let mut base = base.trim().to_string();
        if !base.is_empty() && !base.ends_with('/') {
            base.push('/');
        }
        Ok(EmbedOptions {
            panels: parse_panels(panels)?,
            lesson: some(lesson),
            lesson_text: (!lesson_text.trim().is_empty()).then(|| lesson_text.to_string()),
            lang: some(lang).map(|l| Lang::from_tag(&l)),
            seed,
            cluster: some(cluster),
            scenario: (!scenario.trim().is_empty()).then(|| scenario.to_string()),
            base,
        })
    }

    /// The panels to show: the ones asked for, else the lesson's, else the
    /// default two.
    pub fn shown_panels(&self, lesson_panels: &[String]) -> Vec<&'static str> {
        if !self.panels.is_empty() {
            return self.panels.clone();
        }
        let from_lesson: Vec<&'static str> =
            PANEL_NAMES.iter().map(|(_, id)| *id).filter(|id| lesson_panels.iter().any(|p| p == id)).collect();
        if from_lesson.is_empty() {
            DEFAULT_PANELS.to_vec()
        } else {
            from_lesson
        }
    }

    /// A file of the element's, by its path under the base.
    pub fn asset(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_by_short_name_or_id_in_order_once_and_unknown_ones_refused() {
        assert_eq!(parse_panels("kubectl,lanes").unwrap(), vec!["command-panel", "lanes-panel"]);
        assert_eq!(parse_panels(" lanes  inspector-panel, lanes ").unwrap(), vec!["lanes-panel", "inspector-panel"]);
        assert_eq!(parse_panels("").unwrap(), Vec::<&str>::new());
        let e = parse_panels("kubectl,graph").unwrap_err();
        assert!(e.contains("no panel \"graph\""), "{e}");
        assert!(e.contains("kubectl, lanes, inspector"), "{e}");
        // Every panel a lesson may name has a short name.
        for id in crate::lessons::PANELS {
            assert!(PANEL_NAMES.iter().any(|(_, p)| p == id), "{id}");
        }
    }

    #[test]
    fn attributes_become_options() {
        let attrs = |pairs: &[(&str, &str)]| {
            let map: serde_json::Map<String, serde_json::Value> =
                pairs.iter().map(|(k, v)| (k.to_string(), serde_json::json!(v))).collect();
            serde_json::from_value::<Attributes>(serde_json::Value::Object(map)).unwrap()
        };
        let a = attrs(&[
            ("panels", "console"),
            ("lesson", "watch-from-rv"),
            ("lang", "zh-CN"),
            ("seed", "7"),
            ("cluster", "docs"),
            ("base", "/k"),
        ]);
        let o = EmbedOptions::from_attributes(&a).unwrap();
        assert_eq!(o.panels, vec!["console-panel"]);
        assert_eq!(o.lesson.as_deref(), Some("watch-from-rv"));
        assert_eq!(o.lang, Some(Lang::Zh));
        assert_eq!(o.seed, 7);
        assert_eq!(o.cluster.as_deref(), Some("docs"));
        assert_eq!(o.scenario, None);
        assert_eq!(o.asset("lessons/index.yaml"), "/k/lessons/index.yaml");
        let d = EmbedOptions::from_attributes(&attrs(&[("lessonText", "steps: []"), ("scenario", "kind: ConfigMap")]))
            .unwrap();
        assert_eq!((d.seed, d.lang, d.cluster.clone()), (1, None, None));
        assert_eq!(d.scenario.as_deref(), Some("kind: ConfigMap"));
        assert_eq!(d.lesson_text.as_deref(), Some("steps: []"));
        assert!(EmbedOptions::from_attributes(&attrs(&[("seed", "seven")])).unwrap_err().contains("seed"));
    }

    #[test]
    fn the_shown_panels_are_the_asked_for_else_the_lessons_else_two() {
        let lesson = vec!["lanes-panel".to_string(), "command-panel".to_string()];
        let asked = EmbedOptions { panels: vec!["console-panel"], ..Default::default() };
        assert_eq!(asked.shown_panels(&lesson), vec!["console-panel"]);
        let none = EmbedOptions::default();
        // In the page's order, not the lesson's.
        assert_eq!(none.shown_panels(&lesson), vec!["command-panel", "lanes-panel"]);
        assert_eq!(none.shown_panels(&[]), DEFAULT_PANELS.to_vec());
    }
}
