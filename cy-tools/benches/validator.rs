//! The argument validator on its own against jsonschema 0.61, which it replaced: compiling a
//! schema, and checking valid and invalid arguments (for invalid ones, writing the message a call
//! returns), on a raw tool's hand-written schema and on a typed tool's generated one.
//!
//! `scripts/criterion_report.py` reads the medians: `validator/<case>/jsonschema` against
//! `validator/<case>/cy_tools` ran one after the other in the same process.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use cy_tools::__private::CompiledSchema;
use serde_json::{Value, json};

/// The schema of a code-running tool, as `execute_code` writes it by hand (canonicalized).
fn raw_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 1},
            "filename": {"type": "string", "default": "main.py"},
            "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000}
        },
        "required": ["code"],
        "additionalProperties": false
    })
}

/// What schemars generates for a typed tool with schema-only constraints (the runtime bench's
/// `CheckedGreetParams`), canonicalized.
fn typed_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"description": "Who to greet.", "type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z]+$"},
            "times": {"description": "How many times.", "type": "integer", "format": "uint32", "minimum": 1, "maximum": 10},
            "loud": {"description": "Shout.", "type": ["boolean", "null"]}
        },
        "required": ["name", "times"],
        "additionalProperties": false
    })
}

/// `/items/0/name` → `items[0].name`, as the runtime did with jsonschema's paths.
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

/// The runtime's check as it was with jsonschema: up to five violations, with paths.
fn jsonschema_check(validator: &jsonschema::Validator, args: &Value) -> Result<(), String> {
    let violations: Vec<String> = validator
        .iter_errors(args)
        .take(6)
        .map(|err| {
            let path = pointer_to_path(err.instance_path().as_str());
            if path.is_empty() {
                err.to_string()
            } else {
                format!("`{path}`: {err}")
            }
        })
        .collect();
    if violations.is_empty() {
        return Ok(());
    }
    let mut message = violations[..violations.len().min(5)].join("; ");
    if violations.len() > 5 {
        message.push_str("; and more");
    }
    Err(message)
}

fn validator(c: &mut Criterion) {
    let cases = [
        (
            "raw",
            raw_schema(),
            json!({"code": "print(1)", "timeout_ms": 1000}),
            json!({"code": "", "timeout_ms": 0}),
        ),
        (
            "typed",
            typed_schema(),
            json!({"name": "ada", "times": 3, "loud": true}),
            json!({"name": "Ada", "times": 0}),
        ),
    ];
    let mut group = c.benchmark_group("validator");
    for (name, schema, valid, invalid) in cases {
        group.bench_function(format!("{name}_compile/jsonschema"), |b| {
            b.iter(|| black_box(jsonschema::draft202012::new(black_box(&schema)).unwrap()))
        });
        group.bench_function(format!("{name}_compile/cy_tools"), |b| {
            b.iter(|| black_box(CompiledSchema::new(black_box(&schema)).unwrap()))
        });
        let reference = jsonschema::draft202012::new(&schema).unwrap();
        let ours = CompiledSchema::new(&schema).unwrap();
        for (kind, args) in [("valid", &valid), ("invalid", &invalid)] {
            assert_eq!(ours.check(args).is_ok(), kind == "valid");
            assert_eq!(jsonschema_check(&reference, args).is_ok(), kind == "valid");
            group.bench_function(format!("{name}_{kind}/jsonschema"), |b| {
                b.iter(|| black_box(jsonschema_check(&reference, black_box(args))))
            });
            group.bench_function(format!("{name}_{kind}/cy_tools"), |b| {
                b.iter(|| black_box(ours.check(black_box(args))))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, validator);
criterion_main!(benches);
