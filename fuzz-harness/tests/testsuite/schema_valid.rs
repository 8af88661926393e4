//! A differential property of every linked tool: arguments its published schema accepts are
//! never refused as invalid arguments.
//!
//! The schema a model sees (schemars' derive, canonicalized) and what the tool accepts (serde's
//! derive, plus the validator for constrained schemas) are written by two different derives; a
//! field where they disagree is one a model can follow the schema and still be told off. The
//! arguments come from the fuzz harness's schema-steered generator, driven by a seeded
//! generator so a failure reproduces; the schema's verdict is cy-tools' own validator's (held
//! to jsonschema's verdicts by `cy-tools/tests/testsuite/validator_parity/`).
//!
//! One disagreement is known and left out: schemars writes a sized integer as `"type":
//! "integer", "format": "uint32", "minimum": 0` with no `maximum`, and JSON Schema's `integer`
//! takes `3.0`; serde refuses both a number past the type's range and any float. So a value is
//! taken as schema-valid here only when every integer under such a `format` is a JSON integer
//! in the format's range (what the `format` tells a model); the calls left out are counted and
//! printed. Bounds in the canonical schema would close it (see the test's failure text).

use arbitrary::Unstructured;
use cy_tools::__private::CompiledSchema;
use cy_tools::{CancellationToken, ToolCall};
use cy_tools_fuzz_harness::{Bench, json_gen};
use serde_json::Value;

/// splitmix64: small, seeded, the same on every machine.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// The range of a sized integer `format` as schemars writes them (`uint` is `usize`).
fn format_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// Whether every number of `value` under a sized integer `format` of `schema` (a subschema of
/// `root`) is a JSON integer in the format's range.
fn fits_formats(root: &Value, schema: &Value, value: &Value) -> bool {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or_default();
        let resolved = root.pointer(&format!("/$defs/{name}"));
        return resolved.is_none_or(|s| fits_formats(root, s, value));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return options.iter().any(|s| fits_formats(root, s, value));
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array)
        && !all.iter().all(|s| fits_formats(root, s, value))
    {
        return false;
    }
    match value {
        Value::Number(n) => {
            let Some((min, max)) = schema
                .get("format")
                .and_then(Value::as_str)
                .and_then(format_range)
            else {
                return true;
            };
            let as_int = n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_u64().map(i128::from));
            as_int.is_some_and(|i| (min..=max).contains(&i))
        }
        Value::Object(map) => map.iter().all(|(key, item)| {
            schema
                .get("properties")
                .and_then(|p| p.get(key))
                .is_none_or(|s| fits_formats(root, s, item))
        }),
        Value::Array(items) => schema
            .get("items")
            .is_none_or(|s| items.iter().all(|item| fits_formats(root, s, item))),
        _ => true,
    }
}

/// Attempts per tool, and the schema-valid calls each must reach (most tools reach it in a
/// few dozen attempts: the generator follows the schema seven times in eight).
const ATTEMPTS: usize = 3_000;
const VALID_CALLS: usize = 60;

#[test]
fn arguments_the_schema_accepts_are_never_invalid_arguments() {
    let bench = Bench::new();
    let mut seeded = Seeded(0x00c7_7001_5eed);
    let mut refused = Vec::new();
    let mut too_few = Vec::new();
    let mut past_format = 0;
    let mut calls = 0;
    let cancel = CancellationToken::new();
    for name in bench.names.clone() {
        let tool = bench.tools.get(&name).expect("a bound tool").clone();
        let schema = tool.parameters();
        let validator = CompiledSchema::new(schema)
            .unwrap_or_else(|err| panic!("`{name}`'s schema does not compile: {err}"));
        let mut valid = 0;
        for attempt in 0..ATTEMPTS {
            if valid == VALID_CALLS {
                break;
            }
            let seed_bytes = seeded.bytes(256);
            let mut u = Unstructured::new(&seed_bytes);
            let Ok(arguments) = json_gen::object_for(&mut u, schema, schema, 0) else {
                continue;
            };
            if !validator.is_valid(&arguments) {
                continue;
            }
            if !fits_formats(schema, schema, &arguments) {
                past_format += 1;
                continue;
            }
            valid += 1;
            calls += 1;
            bench.fixture.reset();
            bench.coordinator.reset();
            let result = bench
                .runtime
                .block_on(tool.execute(ToolCall::new("c1", arguments.clone()), &cancel));
            let kind = result.details.as_ref().and_then(|d| d.get("error"));
            if kind.and_then(|k| k.as_str()) == Some("invalid_arguments") {
                refused.push(format!(
                    "`{name}` (attempt {attempt}) refused {arguments}: {}",
                    result.text_content()
                ));
            }
        }
        if valid < VALID_CALLS {
            too_few.push(format!("`{name}`: {valid}"));
        }
    }
    eprintln!(
        "{calls} schema-valid calls over {} tools; left out {past_format} schema-valid calls with an integer past its `format`'s range or a float where a sized integer is asked for (schemars writes no `maximum` for them; serde refuses them)",
        bench.names.len()
    );
    assert!(
        refused.is_empty(),
        "{} schema-valid calls were refused as invalid arguments: the tool's schema and its deserialization disagree (make the parameter type's schema say what serde accepts):\n{}",
        refused.len(),
        refused.join("\n")
    );
    assert!(
        too_few.is_empty(),
        "the generator made fewer than {VALID_CALLS} schema-valid calls in {ATTEMPTS} attempts for: {} (steer `json_gen` toward what these schemas ask for)",
        too_few.join(", ")
    );
}
