//! [`Taking`] against `serde_json::from_value` on generated inputs, not only on hand-picked
//! ones: for every value, both accept with equal parameters or both refuse with the same words,
//! and a failed `Taking` pass leaves a value whose path-tracking pass reports the same first
//! error, at the same path, as over the untouched value (what `args::deserialize` relies on).
//!
//! The values start from a valid one per parameter type and are mutated at random (nodes
//! replaced by values of other shapes, variant names, boundary numbers; fields removed or
//! added) by a seeded generator, so a failure names a seed and case that reproduce it.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::taking::Taking;

/// splitmix64: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// Texts that are field names, variant names, tags or plain strings of the types below.
const WORDS: &[&str] = &[
    "", "a", "x", "fast", "slow", "Fast", "Point", "Circle", "Rect", "Named", "label", "city",
    "zip", "kind", "dog", "cat", "t", "c", "name", "note", "tags", "count", "small", "ratio",
    "flag", "path", "extra", "place", "mode", "shape", "either", "map", "pair", "id", "letter",
    "places", "pet", "tagged", "inner", "limit", "é", "1", "-1", "true", "null",
];

fn number(rng: &mut Rng) -> Value {
    match rng.next() % 14 {
        0 => json!(0),
        1 => json!(1),
        2 => json!(-1),
        3 => json!(255),
        4 => json!(256),
        5 => json!(u32::MAX),
        6 => json!(u64::from(u32::MAX) + 1),
        7 => json!(i64::MIN),
        8 => json!(u64::MAX),
        9 => json!(0.5),
        10 => json!(3.0),
        11 => json!(-1.5e300),
        12 => json!(rng.next() as i64),
        _ => json!(f64::from(rng.next() as u32) / 7.0),
    }
}

/// Any JSON value, its strings and keys mostly from [`WORDS`].
fn any(rng: &mut Rng, depth: u32) -> Value {
    let kinds = if depth >= 3 { 4 } else { 7 };
    match rng.next() % kinds {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => number(rng),
        3 => Value::String((*rng.pick(WORDS)).to_string()),
        4 => {
            let len = rng.next() % 4;
            Value::Array((0..len).map(|_| any(rng, depth + 1)).collect())
        }
        _ => {
            let len = rng.next() % 3 + usize::from(rng.one_in(2)) as u64;
            let mut map = Map::new();
            for _ in 0..len {
                map.insert((*rng.pick(WORDS)).to_string(), any(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// `value` with some nodes replaced, removed or added, each node one time in about `rate`.
fn mutate(rng: &mut Rng, value: &mut Value, depth: u32, rate: u64) {
    if rng.one_in(rate) {
        *value = any(rng, depth);
        return;
    }
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                if rng.one_in(rate * 2) {
                    map.remove(&key);
                } else if let Some(item) = map.get_mut(&key) {
                    mutate(rng, item, depth + 1, rate);
                }
            }
            if rng.one_in(rate * 2) {
                map.insert((*rng.pick(WORDS)).to_string(), any(rng, depth + 1));
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                mutate(rng, item, depth + 1, rate);
            }
            if rng.one_in(rate) {
                items.push(any(rng, depth + 1));
            } else if rng.one_in(rate) {
                items.pop();
            }
        }
        _ => {}
    }
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    name: String,
    note: Option<String>,
    tags: Vec<String>,
    count: u32,
    small: u8,
    ratio: f64,
    flag: bool,
    letter: char,
    path: PathBuf,
    extra: Value,
    place: Place,
    places: Vec<Place>,
    mode: Mode,
    shape: Shape,
    either: Either,
    map: BTreeMap<String, i64>,
    pair: (String, u8),
    id: Id,
    #[serde(default)]
    limit: Option<u64>,
    pet: Pet,
    tagged: Adjacent,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct Place {
    city: String,
    zip: Option<u32>,
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Slow,
}

#[derive(Debug, PartialEq, Deserialize)]
enum Shape {
    Point,
    Circle(f64),
    Rect(u32, u32),
    Named { label: String },
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(untagged)]
enum Either {
    Number(i64),
    Text(String),
    Place(Place),
}

/// Internally tagged: serde buffers the object and reads it twice.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Pet {
    Dog { name: String },
    Cat { lives: u8 },
}

#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Inner(String),
    Count(u32),
}

#[derive(Debug, PartialEq, Deserialize)]
struct Id(String);

/// A second shape: flattened fields (buffered too) and a map of structs.
#[derive(Debug, PartialEq, Deserialize)]
struct Flat {
    name: String,
    #[serde(flatten)]
    place: Place,
    #[serde(default)]
    by_city: BTreeMap<String, Place>,
}

fn good_params() -> Value {
    json!({
        "name": "ada", "note": "hi", "tags": ["a", "b"], "count": 3, "small": 7, "ratio": 0.5,
        "flag": true, "letter": "x", "path": "/w/a.txt", "extra": {"k": ["v", 1, null]},
        "place": {"city": "Oslo", "zip": null}, "places": [{"city": "a", "zip": 1}],
        "mode": "slow", "shape": {"Named": {"label": "box"}}, "either": "text",
        "map": {"x": -1}, "pair": ["p", 7], "id": "id-1", "limit": 9,
        "pet": {"kind": "dog", "name": "rex"}, "tagged": {"t": "Inner", "c": "in"}
    })
}

fn good_flat() -> Value {
    json!({"name": "n", "city": "c", "zip": 5, "by_city": {"x": {"city": "y", "zip": null}}})
}

/// Checks one value; the message names what differs.
fn agree<P: DeserializeOwned + PartialEq + Debug>(value: &Value) -> Result<(), String> {
    let reference = serde_json::from_value::<P>(value.clone()).map_err(|e| e.to_string());
    let mut taken = value.clone();
    let taking = P::deserialize(Taking(&mut taken)).map_err(|e| e.to_string());
    if taking != reference {
        return Err(format!(
            "Taking gave {taking:?}, from_value {reference:?}, for {value}"
        ));
    }
    if taking.is_err() {
        let after = serde_path_to_error::deserialize::<_, P>(&taken)
            .map(|_| ())
            .map_err(|e| (e.path().to_string(), e.to_string()));
        let before = serde_path_to_error::deserialize::<_, P>(value)
            .map(|_| ())
            .map_err(|e| (e.path().to_string(), e.to_string()));
        if after != before {
            return Err(format!(
                "after a failed pass the tracked pass says {after:?}, over the original {before:?}, for {value}"
            ));
        }
    }
    Ok(())
}

/// Runs `cases` mutations of `good` through [`agree`]; returns how many were accepted.
fn run<P: DeserializeOwned + PartialEq + Debug>(seed: u64, cases: usize, good: &Value) -> usize {
    let mut rng = Rng(seed);
    agree::<P>(good).unwrap_or_else(|err| panic!("the unmutated value: {err}"));
    let mut accepted = 0;
    for case in 0..cases {
        let mut value = good.clone();
        // From nearly every node changed to about one in a case.
        let rate = *rng.pick(&[4, 15, 60, 200]);
        mutate(&mut rng, &mut value, 0, rate);
        if let Err(err) = agree::<P>(&value) {
            panic!("seed {seed:#x}, case {case}: {err}");
        }
        accepted += usize::from(serde_json::from_value::<P>(value).is_ok());
    }
    accepted
}

#[test]
fn taking_agrees_with_from_value_on_generated_values() {
    let cases = 20_000;
    let accepted = run::<Params>(0x7a4b_1e55, cases, &good_params());
    eprintln!("Params: {accepted} of {cases} generated values accepted by both");
    // Both verdicts must be well represented, or the comparison says little.
    assert!(
        (cases / 50..cases - cases / 50).contains(&accepted),
        "{accepted} of {cases} accepted: tune `mutate` so both accepts and refusals are common"
    );
    let accepted = run::<Flat>(0x0f1a_7fed, cases, &good_flat());
    eprintln!("Flat: {accepted} of {cases} generated values accepted by both");
    assert!(
        (cases / 50..cases - cases / 50).contains(&accepted),
        "{accepted} of {cases} accepted: tune `mutate` so both accepts and refusals are common"
    );
}
