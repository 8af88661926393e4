//! Dense sweeps where the two validators compute rather than compare: numbers against bounds
//! and divisors, and strings against ECMA-262 patterns (translated for the `regex` crate here,
//! run by fancy-regex in jsonschema).

use serde_json::{Number, Value, json};

use super::Pair;
use super::corpus::Case;

fn pair(name: &str, schema: Value) -> Pair {
    Pair::new(&Case {
        name: name.to_string(),
        schema,
    })
}

/// Integers and decimals around zero and the usual bounds, written as integers and as floats.
fn numbers() -> Vec<Value> {
    let mut out = Vec::new();
    for i in -300_i64..=300 {
        out.push(json!(i));
        out.push(json!(i as f64 / 100.0));
        out.push(json!(i as f64 * 0.1));
        out.push(json!(i as f64 * 0.3));
    }
    for f in [
        1e-9,
        3e-7,
        123.456,
        1e15 + 0.5,
        9007199254740993.0,
        1e300,
        -1e300,
        2.5e-5,
    ] {
        out.push(json!(f));
    }
    for i in [i64::MIN, i64::MAX, 9007199254740993, -9007199254740993] {
        out.push(json!(i));
    }
    out.push(json!(u64::MAX));
    out.retain(|v| matches!(v, Value::Number(n) if n.as_f64().is_some()));
    out
}

#[test]
fn divisors_agree_on_integers_and_decimals() {
    let divisors = [
        json!(0.1),
        json!(0.01),
        json!(0.05),
        json!(0.25),
        json!(0.3),
        json!(1.5),
        json!(2.5),
        json!(0.001),
        json!(0.07),
        json!(1e-5),
        json!(3),
        json!(7),
        json!(2.0),
        json!(1000000),
    ];
    // Past what `i128` holds in decimal (`1e300` over `0.3`), jsonschema answers from the binary
    // value of the float, by its own account inexactly; this validator reads decimals there too.
    let values: Vec<Value> = numbers()
        .into_iter()
        .filter(|v| v.as_f64().is_some_and(|f| f.abs() < 1e100))
        .collect();
    for divisor in divisors {
        let pair = pair(
            &format!("multipleOf {divisor}"),
            json!({"multipleOf": divisor}),
        );
        for value in &values {
            pair.agree(value);
        }
    }
}

#[test]
fn bounds_agree_on_integers_and_decimals() {
    let limits = [
        json!(0),
        json!(1),
        json!(-1),
        json!(1.5),
        json!(-0.5),
        json!(2.0),
        json!(i64::MAX),
        json!(u64::MAX),
        json!(9007199254740993_i64),
        json!(Value::Number(Number::from_f64(9007199254740992.0).unwrap())),
    ];
    let values = numbers();
    for limit in limits {
        for keyword in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            let pair = pair(&format!("{keyword} {limit}"), json!({keyword: limit}));
            for value in &values {
                pair.agree(value);
            }
        }
    }
}

#[test]
fn patterns_agree_on_strings() {
    let patterns = [
        "^[a-z]+$",
        "^[A-Za-z0-9_-]{1,64}$",
        r"^\d+$",
        r"^\D+$",
        r"\w",
        r"^\W*$",
        r"^\s*$",
        r"\S",
        "^.+$",
        "^.*$",
        "a.c",
        "^(foo|bar)$",
        "^x-",
        "abc",
        "^$",
        r"^[^\s@]+@[^\s@]+\.[^\s@]+$",
        r"^[\w.-]+$",
        "^[-a-z]+$",
        "^[a-z-]+$",
        r"^[\d\s]+$",
        r"^\p{L}+$",
        "^[é-ë]+$",
        r"^\u00e9",
        r"^\x41",
        "^(a|b)*c?$",
        "^a{2,3}$",
        r"^\.\*$",
        r"\bword\b",
        "^[^a-z]$",
        "^(?:ab)+$",
        r"^\/path$",
        "^[.]$",
        r"^[\^]$",
        "日本",
        "^🦀+$",
        r"^\t$",
        "^[ \t]+$",
        r"^[\]]$",
        // One class over the whole string, which the validator matches by counting.
        r"^\d{2,3}$",
        r"^[^\s]*$",
        "^.{1,3}$",
        "^[A-Z_]{2}?$",
        r"^\S+$",
        r"^[\w-]{3,}$",
        r"^[^a-c]{0,2}$",
    ];
    let mut strings: Vec<String> = [
        "",
        "a",
        "abc",
        "ABC",
        "a-b",
        "a_b",
        "a b",
        " ",
        "\t",
        "\n",
        "\r",
        "\u{a0}",
        "\u{feff}",
        "\u{2028}",
        "\u{85}",
        "123",
        "١٢٣",
        "12a",
        "é",
        "éë",
        "ë",
        "日本語",
        "🦀",
        "🦀🦀",
        "foo",
        "bar",
        "foobar",
        "x-y",
        "x",
        "ac",
        "abc.",
        "a.c",
        "a\nc",
        "aa",
        "aaa",
        "aaaa",
        "ab",
        "abab",
        "c",
        "bbc",
        "a@b.c",
        "a@b",
        "word",
        "a word here",
        "swordfish",
        ".*",
        "/path",
        "\\/path",
        ".",
        "^",
        "]",
        "A",
        "-",
        "a-",
        "-a",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    strings.push("x".repeat(64));
    strings.push("x".repeat(65));
    for pattern in patterns {
        let pair = pair(pattern, json!({"pattern": pattern}));
        for string in &strings {
            pair.agree(&json!(string));
        }
    }
}
