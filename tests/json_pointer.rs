//! The vendored serde_json's JSON pointers (vendor/README.md: a token is
//! copied only when it has an escape to undo) read as RFC 6901 says.

use serde_json::json;

#[test]
fn pointers_undo_escapes_and_only_escapes() {
    let mut v = json!({
        "metadata": {"annotations": {"example.com/a~b": "1", "a/b": "2", "~1": "3", "plain": "4"}},
        "list": [{"x": 1}, {"x": 2}],
        "": {"": 5}
    });
    let cases = [
        ("/metadata/annotations/example.com~1a~0b", Some(json!("1"))),
        ("/metadata/annotations/a~1b", Some(json!("2"))),
        // `~01` is `~1` (the `~0` undone after `~1`), not `/`.
        ("/metadata/annotations/~01", Some(json!("3"))),
        ("/metadata/annotations/plain", Some(json!("4"))),
        ("/metadata/annotations/a/b", None),
        ("/list/1/x", Some(json!(2))),
        ("/list/01/x", None),
        ("/list/+1/x", None),
        ("//", Some(json!(5))),
        ("", Some(v.clone())),
        ("metadata", None),
    ];
    for (pointer, want) in cases {
        assert_eq!(v.pointer(pointer).cloned(), want, "{pointer}");
        assert_eq!(v.clone().pointer_mut(pointer).map(|x| x.clone()), want, "{pointer} (mut)");
    }
    *v.pointer_mut("/metadata/annotations/a~1b").unwrap() = json!("changed");
    assert_eq!(v["metadata"]["annotations"]["a/b"], "changed");
}
