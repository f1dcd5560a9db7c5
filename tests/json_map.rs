//! `serde_json::Map` behaves as the insertion-ordered map it always was.
//! The vendored serde_json (`vendor/README.md`) keeps a map's entries in a
//! vector and hashes keys only once it holds more than a few; this drives
//! one with random operations across that threshold and checks every step
//! against a plain vector of pairs with `IndexMap`'s semantics (insert
//! keeps an existing key's place, swap-remove moves the last entry into
//! the hole, shift-remove keeps the order, equality ignores order).

use proptest::prelude::*;
use serde_json::{json, Map, Value};

#[derive(Debug, Clone)]
enum Op {
    Insert(u8, u8),
    EntryOrInsert(u8, u8),
    SwapRemove(u8),
    ShiftRemove(u8),
    EntrySwapRemove(u8),
    EntryShiftRemove(u8),
    ShiftInsert(u8, u8, u8),
    Retain(u8),
    SortKeys,
    Clear,
}

fn key(k: u8) -> String {
    // Keys of a few lengths, some sharing a length (compared by content).
    format!("k{}{}", "x".repeat(usize::from(k % 3)), k)
}

fn op() -> impl Strategy<Value = Op> {
    // Keys from a pool of 24 so maps cross the small-map size both ways.
    let k = 0u8..24;
    prop_oneof![
        6 => (k.clone(), any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
        2 => (k.clone(), any::<u8>()).prop_map(|(k, v)| Op::EntryOrInsert(k, v)),
        2 => k.clone().prop_map(Op::SwapRemove),
        2 => k.clone().prop_map(Op::ShiftRemove),
        1 => k.clone().prop_map(Op::EntrySwapRemove),
        1 => k.clone().prop_map(Op::EntryShiftRemove),
        1 => (any::<u8>(), k.clone(), any::<u8>()).prop_map(|(i, k, v)| Op::ShiftInsert(i, k, v)),
        1 => (1u8..4).prop_map(Op::Retain),
        1 => Just(Op::SortKeys),
        1 => Just(Op::Clear),
    ]
}

/// The model: pairs in order, searched one by one.
fn position(model: &[(String, Value)], k: &str) -> Option<usize> {
    model.iter().position(|(mk, _)| mk == k)
}

fn apply(map: &mut Map<String, Value>, model: &mut Vec<(String, Value)>, op: &Op) {
    match op {
        Op::Insert(k, v) => {
            let (k, v) = (key(*k), json!(v));
            let old = map.insert(k.clone(), v.clone());
            let want = match position(model, &k) {
                Some(i) => Some(std::mem::replace(&mut model[i].1, v)),
                None => {
                    model.push((k, v));
                    None
                }
            };
            assert_eq!(old, want);
        }
        Op::EntryOrInsert(k, v) => {
            let (k, v) = (key(*k), json!(v));
            let got = map.entry(k.clone()).or_insert(v.clone()).clone();
            let want = match position(model, &k) {
                Some(i) => model[i].1.clone(),
                None => {
                    model.push((k, v.clone()));
                    v
                }
            };
            assert_eq!(got, want);
        }
        Op::SwapRemove(k) => {
            let k = key(*k);
            let got = map.swap_remove(&k);
            assert_eq!(got, position(model, &k).map(|i| model.swap_remove(i).1));
        }
        Op::ShiftRemove(k) => {
            let k = key(*k);
            let got = map.shift_remove(&k);
            assert_eq!(got, position(model, &k).map(|i| model.remove(i).1));
        }
        Op::EntrySwapRemove(k) => {
            let k = key(*k);
            let got = match map.entry(k.clone()) {
                serde_json::map::Entry::Occupied(o) => Some(o.swap_remove_entry()),
                serde_json::map::Entry::Vacant(_) => None,
            };
            assert_eq!(got, position(model, &k).map(|i| model.swap_remove(i)));
        }
        Op::EntryShiftRemove(k) => {
            let k = key(*k);
            let got = match map.entry(k.clone()) {
                serde_json::map::Entry::Occupied(o) => Some(o.shift_remove()),
                serde_json::map::Entry::Vacant(_) => None,
            };
            assert_eq!(got, position(model, &k).map(|i| model.remove(i).1));
        }
        Op::ShiftInsert(i, k, v) => {
            let (k, v) = (key(*k), json!(v));
            let found = position(model, &k);
            // Valid places: any for a new key, any but one past the end
            // for a key that moves.
            let places = model.len() + usize::from(found.is_none());
            if places == 0 {
                return;
            }
            let at = usize::from(*i) % places;
            let old = map.shift_insert(at, k.clone(), v.clone());
            let want = match found {
                Some(j) => {
                    let (mk, old) = model.remove(j);
                    model.insert(at, (mk, v));
                    Some(old)
                }
                None => {
                    model.insert(at, (k, v));
                    None
                }
            };
            assert_eq!(old, want);
        }
        Op::Retain(m) => {
            let keep = |v: &Value| v.as_u64().is_some_and(|n| n % u64::from(*m) == 0);
            map.retain(|_, v| keep(v));
            model.retain(|(_, v)| keep(v));
        }
        Op::SortKeys => {
            map.sort_keys();
            model.sort_by(|a, b| a.0.cmp(&b.0));
        }
        Op::Clear => {
            map.clear();
            model.clear();
        }
    }
}

fn check(map: &Map<String, Value>, model: &[(String, Value)]) {
    let pairs: Vec<(String, Value)> = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(pairs, model, "entries in order");
    assert_eq!(map.len(), model.len());
    assert_eq!(
        map.keys().rev().cloned().collect::<Vec<_>>(),
        model.iter().rev().map(|p| p.0.clone()).collect::<Vec<_>>()
    );
    for k in 0..24 {
        let k = key(k);
        let want = position(model, &k).map(|i| &model[i].1);
        assert_eq!(map.get(&k), want, "get {k}");
        assert_eq!(map.contains_key(&k), want.is_some());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn map_matches_a_vector_of_pairs(ops in prop::collection::vec(op(), 1..120)) {
        let mut map = Map::new();
        let mut model = Vec::new();
        for op in &ops {
            apply(&mut map, &mut model, op);
            check(&map, &model);
        }
        // A map made from distinct pairs at once (`Map::from_distinct`,
        // indexed or not by its size) is the same map, and stays so
        // through the same operations again.
        let (mut built, mut again) = (Map::from_distinct(model.clone()), model.clone());
        check(&built, &again);
        for op in &ops {
            apply(&mut built, &mut again, op);
            check(&built, &again);
        }
        // A clone is equal, and so is the same map in another order.
        let clone = map.clone();
        prop_assert_eq!(&clone, &map);
        let reversed: Map<String, Value> = model.iter().rev().cloned().collect();
        prop_assert_eq!(&reversed, &map);
        // Through JSON and back: the same pairs in the same order.
        let back: Map<String, Value> = serde_json::from_str(&serde_json::to_string(&map).unwrap()).unwrap();
        let again: Vec<(String, Value)> = back.into_iter().collect();
        prop_assert_eq!(again, model);
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "a key repeated")]
fn a_map_from_distinct_pairs_refuses_a_repeat_in_debug_builds() {
    let _ = Map::from_distinct(vec![("a".into(), json!(1)), ("b".into(), json!(2)), ("a".into(), json!(3))]);
}

#[test]
fn equality_ignores_order_but_not_values() {
    let a: Map<String, Value> = (0..20).map(|i| (format!("k{i}"), json!(i))).collect();
    let mut b: Map<String, Value> = (0..20).rev().map(|i| (format!("k{i}"), json!(i))).collect();
    assert_eq!(a, b);
    b.insert("k3".into(), json!("three"));
    assert_ne!(a, b);
    let small: Map<String, Value> = (0..3).map(|i| (format!("k{i}"), json!(i))).collect();
    assert_ne!(a, small);
}

#[test]
fn a_later_duplicate_key_wins_in_place() {
    // serde_json's reader inserts each key it meets: the last value of a
    // repeated key, at the first one's place (kubesim refuses duplicates
    // in request bodies before this, but reads its own data with it).
    let v: Value = serde_json::from_str(r#"{"a":1,"b":2,"a":3}"#).unwrap();
    assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"a":3,"b":2}"#);
}

/// A small map compares `str` keys of up to sixteen bytes as two words (or
/// half-words, or bytes) each: a key that differs from another of its
/// length in any one byte, at any length from 0 to 20, is told apart, by
/// `value["key"]`, `Value::get`, `get_mut`, `insert` and `entry`.
#[test]
fn keys_of_every_short_length_differing_at_every_byte_are_told_apart() {
    for len in 0..=20usize {
        let base: String = "abcdefghijklmnopqrstuvwxyz".chars().take(len).collect();
        for at in 0..len {
            let mut other = base.clone().into_bytes();
            other[at] = b'_';
            let other = String::from_utf8(other).unwrap();
            let mut value = json!({});
            let map = value.as_object_mut().unwrap();
            map.insert(other.clone(), json!(1));
            assert!(map.insert(base.clone(), json!(2)).is_none(), "{base:?} taken for {other:?}");
            assert_eq!(map.len(), 2);
            *map.entry(base.clone()).or_insert(json!(0)) = json!(3);
            assert_eq!(value[base.as_str()], json!(3), "{base:?}");
            assert_eq!(value.get(other.as_str()), Some(&json!(1)), "{other:?}");
            *value.get_mut(other.as_str()).unwrap() = json!(4);
            assert_eq!(value[other.as_str()], json!(4));
            assert_eq!(value.get(format!("{base}!").as_str()), None);
        }
        // And a key is found when it is the only one.
        let value = json!({ base.clone(): 5 });
        assert_eq!(value[base.as_str()], json!(5));
    }
}
