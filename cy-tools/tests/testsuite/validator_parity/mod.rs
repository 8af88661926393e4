//! The in-house argument validator against jsonschema 0.61, which it replaced: over every schema
//! in [`corpus`] and many instances (hand-picked edge cases and [`generate`]d ones), both must
//! give the same verdict and the same violations, word for word, in the same order, at the same
//! paths. Models read these messages, and they were jsonschema's before.

mod corpus;
mod generate;
mod sweeps;

use cy_tools::__private::CompiledSchema;
use serde_json::{Value, json};

use corpus::Case;
use generate::Rng;

/// Generated instances per schema and round.
const GENERATED_PER_SCHEMA: usize = 400;

/// Rounds of generated instances, each from its own seed: 1, or `CY_VALIDATOR_PARITY_ROUNDS`
/// for a longer search.
fn rounds() -> u64 {
    std::env::var("CY_VALIDATOR_PARITY_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

/// `/items/0/name` → `items[0].name`, as the runtime formatted jsonschema's paths.
fn pointer_to_path(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&segment);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

/// Both validators of one schema.
struct Pair {
    name: String,
    reference: jsonschema::Validator,
    ours: CompiledSchema,
}

impl Pair {
    fn new(case: &Case) -> Pair {
        let reference = jsonschema::draft202012::new(&case.schema)
            .unwrap_or_else(|err| panic!("jsonschema refuses `{}`: {err}", case.name));
        let ours = CompiledSchema::new(&case.schema)
            .unwrap_or_else(|err| panic!("the validator refuses `{}`: {err}", case.name));
        Pair {
            name: case.name.clone(),
            reference,
            ours,
        }
    }

    /// Asserts both agree on `instance`; says whether it was valid.
    fn agree(&self, instance: &Value) -> bool {
        let expected: Vec<(String, String)> = self
            .reference
            .iter_errors(instance)
            .map(|err| {
                (
                    pointer_to_path(err.instance_path().as_str()),
                    err.to_string(),
                )
            })
            .collect();
        let valid = self.reference.is_valid(instance);
        assert_eq!(
            valid,
            expected.is_empty(),
            "jsonschema disagrees with itself"
        );
        assert_eq!(
            self.ours.is_valid(instance),
            valid,
            "schema `{}`, instance {instance}: the verdicts differ (jsonschema: {expected:?})",
            self.name
        );
        let ours = self.ours.violations(instance, usize::MAX);
        assert_eq!(
            ours, expected,
            "schema `{}`, instance {instance}: the violations differ",
            self.name
        );
        valid
    }
}

/// Every corpus schema, each with its generated instances; returns how many were checked and
/// how many of those were valid.
fn run(cases: &[Case], seed: u64) -> (usize, usize) {
    let (mut checked, mut valid) = (0, 0);
    for round in 0..rounds() {
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(round));
        for case in cases {
            let pair = Pair::new(case);
            for _ in 0..GENERATED_PER_SCHEMA {
                let instance = generate::instance(&mut rng, &case.schema, &case.schema, 5);
                checked += 1;
                valid += usize::from(pair.agree(&instance));
            }
        }
    }
    (checked, valid)
}

#[test]
fn tool_schemas_get_the_same_answers() {
    let cases = corpus::tool_schemas();
    let (checked, valid) = run(&cases, 1);
    // Enough of both kinds that each side of every answer was compared.
    assert!(
        valid > checked / 10 && valid < checked * 9 / 10,
        "{valid} of {checked} valid"
    );
}

#[test]
fn linked_tool_schemas_get_the_same_answers() {
    let cases = corpus::linked_tool_schemas();
    if cases.is_empty() {
        eprintln!("no MCP snapshots found: built outside the repository");
        return;
    }
    assert!(
        cases.len() >= 20,
        "only {} linked tool schemas",
        cases.len()
    );
    run(&cases, 2);
}

#[test]
fn hand_written_schemas_get_the_same_answers() {
    let cases = corpus::hand_written();
    let (checked, valid) = run(&cases, 3);
    assert!(
        valid > checked / 10 && valid < checked * 9 / 10,
        "{valid} of {checked} valid"
    );
}

#[test]
fn every_schema_gets_the_same_answers_on_arbitrary_values() {
    let mut cases = corpus::hand_written();
    cases.extend(corpus::tool_schemas());
    let mut rng = Rng::new(4);
    for case in &cases {
        let pair = Pair::new(case);
        for _ in 0..100 {
            pair.agree(&generate::arbitrary(&mut rng, 3));
        }
    }
}

/// Edge cases, each against the schema it tests: messages jsonschema words in its own way, and
/// numbers and strings where a naive validator goes wrong.
#[test]
fn edge_cases_get_the_same_answers() {
    let cases = [
        (
            json!({"type": "integer"}),
            json!([1.0, 1.5, -0.0, 1e300, 9007199254740993_u64, "1"]),
        ),
        (
            json!({"type": ["integer", "string"]}),
            json!([null, 1.0, 2.5]),
        ),
        (
            json!({"const": [1, {"a": 2}]}),
            json!([[1.0, {"a": 2.0}], [1, {"a": 2, "b": 3}]]),
        ),
        (
            json!({"enum": [[1], {"a": 1.0}, "x", 4]}),
            json!([[1.0], {"a": 1}, "y", 4.0]),
        ),
        (
            json!({"maximum": 9223372036854775807_i64}),
            json!([9223372036854775807_i64, 9223372036854775808_u64, 9.3e18]),
        ),
        (
            json!({"minimum": 18446744073709551615_u64}),
            json!([18446744073709551615_u64, 1.8446744073709552e19, 1e19]),
        ),
        (
            json!({"exclusiveMinimum": 1}),
            json!([1, 1.0, 1.0000000000000002]),
        ),
        (json!({"exclusiveMaximum": 1.5}), json!([1.5, 1, 2])),
        (
            json!({"multipleOf": 0.1}),
            json!([12.2, 1.1, 4.55, 0.3, 1e-9, 0, -0.7]),
        ),
        (
            json!({"multipleOf": 0.01}),
            json!([1.1, 10.01, 0.07, 19.99, 0.015]),
        ),
        (
            json!({"multipleOf": 3}),
            json!([9, -9, 9.0, 10, 4.5, 1e20, 18446744073709551615_u64]),
        ),
        (
            json!({"multipleOf": 1e-8}),
            json!([0.00000003, 1.0, 123.456]),
        ),
        (json!({"multipleOf": 2.5}), json!([5, 7.5, 1, 1e300])),
        (
            json!({"minLength": 2, "maxLength": 3}),
            json!(["é", "éé", "🦀🦀🦀", "🦀🦀🦀🦀", "ab\u{301}"]),
        ),
        (json!({"pattern": "^\\d+$"}), json!(["123", "١٢٣", "12a"])),
        (json!({"pattern": "^\\w+$"}), json!(["abc_1", "é"])),
        (
            json!({"pattern": "^.$"}),
            json!(["\n", "\r", "é", "\u{2028}", "ab"]),
        ),
        (
            json!({"pattern": "^\\s$"}),
            json!([" ", "\u{a0}", "\u{feff}", "\u{85}", "a"]),
        ),
        (
            json!({"pattern": "^[\\w.-]+@[a-z]+$"}),
            json!(["a.b-c@x", "a@X", "a b@x"]),
        ),
        (
            json!({"uniqueItems": true}),
            json!([[1, 1.0], [[1], [1.0]], [{"a": 1}, {"a": 1.0}], [0, -0.0], [1, "1"]]),
        ),
        (
            json!({"additionalProperties": false}),
            json!([{}, {"a": 1, "b": 2}, {"z": [1]}]),
        ),
        (
            json!({"properties": {"a": {}}, "required": ["b"], "additionalProperties": false}),
            json!([{"a": 1, "b": 2}, {"b": 1}, {}]),
        ),
        (
            json!({"type": "array", "items": {"type": "string"}, "minItems": 2, "const": 5}),
            json!([3, [1], ["a", "b"], "s"]),
        ),
        (
            json!({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}),
            json!([[1, "a"], ["a", 1], [2, 3, "b"]]),
        ),
        (
            json!({"propertyNames": {"maxLength": 1}, "properties": {"ab": {"type": "null"}}}),
            json!([{"ab": 1, "cd": 2}]),
        ),
        (
            json!({"not": {"properties": {"a": {"const": 1}}, "required": ["a"]}}),
            json!([{"a": 1}, {"a": 2}]),
        ),
        (
            json!({"properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"], "minProperties": 3}),
            json!([{"a": 1}, {"b": "x"}, {}]),
        ),
        (
            json!({"contains": {"const": 1}, "minContains": 2, "maxContains": 3}),
            json!([[1], [1, 1], [1, 1, 1, 1], [], 5]),
        ),
        (json!({"required": ["a\"b", "é"]}), json!([{}])),
    ];
    let mut checked = 0;
    for (index, (schema, instances)) in cases.iter().enumerate() {
        let pair = Pair::new(&Case {
            name: format!("edge case {index}"),
            schema: schema.clone(),
        });
        for instance in instances.as_array().unwrap() {
            pair.agree(instance);
            checked += 1;
        }
    }
    assert!(checked > 80, "{checked}");
}

#[test]
fn what_cannot_be_checked_faithfully_does_not_compile() {
    for (schema, phrase) in corpus::refused() {
        let err = CompiledSchema::new(&schema).unwrap_err();
        assert!(err.contains(phrase), "{schema}: {err}");
    }
}
