//! The lessons' tests: every lesson file, run step by step through the
//! page's session, and the checks' parts.

use super::*;
use kubesim::sort::Order;

fn lessons_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../lessons")
}

/// Every lesson the index names, in its order.
fn all() -> Vec<Lesson> {
    let dir = lessons_dir();
    let index = std::fs::read_to_string(dir.join(INDEX_FILE)).expect("lessons/index.yaml");
    index_ids(&index)
        .expect("the index")
        .iter()
        .map(|id| {
            let text = std::fs::read_to_string(dir.join(format!("{id}.yaml"))).expect("the lesson's file");
            parse(id, &text).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

#[test]
fn the_index_names_every_lesson_file_once() {
    let index = std::fs::read_to_string(lessons_dir().join(INDEX_FILE)).unwrap();
    let mut ids = index_ids(&index).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(lessons_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n != INDEX_FILE)
        .filter_map(|n| n.strip_suffix(".yaml").map(str::to_string))
        .collect();
    ids.order();
    files.order();
    assert_eq!(ids, files);
}

/// Each step's check does not hold before the learner acts (it can
/// fail), and holds once the step's reference solution has run through
/// the session, in every lesson, one step after another.
#[test]
fn every_step_turns_green_by_its_solution_and_not_before() {
    for lesson in all() {
        let (mut s, mut p) = open(&lesson, 0, DEFAULT_SEED);
        for (i, step) in lesson.steps.iter().enumerate() {
            let at = format!("lesson {} step {} ({})", lesson.id, i + 1, step.title.en);
            assert!(
                matches!(evaluate(step, &s, &p.start, &p.captures), Verdict::Waiting(_)),
                "{at}: the check holds before the learner did anything"
            );
            let mut out = Vec::new();
            for a in &step.actions {
                out.push(run_act(&mut s, a, &p.captures, None));
            }
            s.pump_lanes();
            match evaluate(step, &s, &p.start, &p.captures) {
                Verdict::Passed(c) => p.captures = c,
                Verdict::Waiting(k) => panic!("{at}: check {} does not hold after the solution: {out:#?}", k + 1),
            }
            if i + 1 < lesson.steps.len() {
                p = begin(&lesson, i + 1, &mut s, p.captures.clone());
            }
        }
    }
}

/// Opening a lesson at a step (a permalink) gives the same cluster
/// every time, and the same one a learner who did the earlier steps
/// has.
#[test]
fn a_permalink_opens_the_same_state_every_time() {
    for lesson in all() {
        let last = lesson.steps.len() - 1;
        let (a, pa) = open(&lesson, last, 7);
        let (b, pb) = open(&lesson, last, 7);
        assert_eq!(a.export_json().unwrap(), b.export_json().unwrap(), "lesson {}", lesson.id);
        assert_eq!(pa.captures, pb.captures);
        assert_eq!(pa.step, last);
    }
}

#[test]
fn the_panels_lessons_may_name_are_the_pages() {
    // The page renders every panel of `embedding::PANEL_NAMES` through
    // `panel_body`, which has an arm per panel.
    let app = include_str!("../components/app.rs");
    for p in PANELS {
        assert!(app.contains(&format!("\"{p}\" => (")), "app.rs has no panel {p}");
    }
    assert_eq!(app.matches("-panel\" => (").count(), PANELS.len(), "a panel lessons cannot name");
    let names = crate::embedding::PANEL_NAMES;
    assert_eq!(names.len(), PANELS.len());
    assert!(names.iter().all(|(_, id)| PANELS.contains(id)));
}

/// An action takes the panel's path: a kubectl watch and a console
/// watch each get a lane, as the command bar and the console give them.
#[test]
fn watches_an_action_starts_get_lanes_as_the_panels_give_them() {
    let mut s = Session::new(1);
    let kubectl = Act { kubectl: Some("get configmaps -w".into()), ..Act::default() };
    run_act(&mut s, &kubectl, &Captures::new(), None);
    assert_eq!(s.lanes.len(), 1);
    let req = Req {
        method: "GET".into(),
        path: "/api/v1/namespaces?watch=1".into(),
        headers: BTreeMap::new(),
        body: None,
        source: None,
    };
    run_act(&mut s, &Act { request: Some(req), ..Act::default() }, &Captures::new(), None);
    assert_eq!(s.lanes.len(), 2);
    assert_eq!(s.lanes[1].path, "/api/v1/namespaces");
}

#[test]
fn a_comma_in_a_flow_mapping_is_caught() {
    let text = "title: {en: A, zh: A}\nsummary: {en: s, zh: s}\nsteps:\n- title: {en: t, zh: t}\n  prose: {en: p, zh: p}\n  do: [{compact: true}]\n  check: [{query: {labelSelector: a=b,c=d}}]\n  hint: {en: h, zh: h}\n";
    assert!(parse("x", text).unwrap_err().contains("\"c=d\" expects null"));
}

#[test]
fn a_string_in_one_language_only_is_refused() {
    let text = "title: {en: A}\nsummary: {en: s, zh: s}\nsteps: []\n";
    assert!(parse("x", text).unwrap_err().contains("missing field `zh`"));
    let text = "title: {en: A, zh: ' '}\nsummary: {en: s, zh: s}\nsteps:\n- title: {en: t, zh: t}\n  prose: {en: p, zh: p}\n  do: [{compact: true}]\n  check: [{method: POST}]\n  hint: {en: h, zh: h}\n";
    assert!(parse("x", text).unwrap_err().contains("missing in one language"));
}

#[test]
fn checks_compare_as_a_learner_would_read_them() {
    let caps: Captures = [("rv".to_string(), "120".to_string())].into();
    let lit = |v: Value| Expect::Literal(v);
    assert!(lit(Value::from(500)).holds(Some(&Value::from("500")), &caps));
    assert!(lit(Value::from("$rv")).holds(Some(&Value::from("120")), &caps));
    assert!(!lit(Value::from("$rv")).holds(Some(&Value::from("121")), &caps));
    assert!(!lit(Value::from("$missing")).holds(Some(&Value::from("121")), &caps));
    let gt = Expect::Test(Test { gt: Some(Value::from("$rv")), ..Test::default() });
    assert!(gt.holds(Some(&Value::from("121")), &caps));
    assert!(!gt.holds(Some(&Value::from("120")), &caps));
    assert!(!gt.holds(None, &caps));
    let absent = Expect::Test(Test { present: Some(false), ..Test::default() });
    assert!(absent.holds(None, &caps) && !absent.holds(Some(&Value::from("x")), &caps));
    assert!(glob("/api/v1/namespaces/*/pods", "/api/v1/namespaces/test/pods"));
    assert!(!glob("/api/v1/namespaces/*/pods", "/api/v1/namespaces/test/pods/x"));
    assert!(glob("*", ""));
    assert_eq!(substitute("a ${rv} ${x} ${", &caps), "a 120 ${x} ${");
}

#[test]
fn the_address_carries_the_lesson_the_step_and_the_seed() {
    let p = Permalink::parse("?present=1&lesson=chunked-lists&step=3&seed=7&lang=zh-CN");
    assert_eq!(p, Permalink { lesson: Some("chunked-lists".into()), step: 2, seed: 7, lang: Some(Lang::Zh) });
    let p = Permalink::parse("lesson=x&step=0&seed=minus");
    assert_eq!((p.step, p.seed, p.lang), (0, DEFAULT_SEED, None));
    assert_eq!(Permalink::parse("").lesson, None);
    let q = Permalink::query("present=1&step=9", Some(("bookmarks", 1, 7)), Lang::Zh);
    assert_eq!(q, "present=1&lesson=bookmarks&step=2&seed=7&lang=zh");
    assert_eq!(Permalink::parse(&q).step, 1);
    assert_eq!(Permalink::query(&q, None, Lang::Zh), "present=1");
}
