//! `$ref`: local references (`#`, `#/$defs/name`, any JSON pointer into the schema document),
//! resolved once at compile time, and the cycles among them that checking could never leave.

use serde_json::Value;

use super::tree::{Node, NodeId};

/// `key` as one JSON-pointer token (`~` and `/` escaped).
pub(super) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `%41` → `A`: a `$ref` is a URI, whose fragment may be percent-encoded.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    format!("`{text}` holds a `%` that is not followed by two hex digits")
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("`{text}` does not decode to UTF-8"))
}

/// The subschema `reference` points at in `root`, and its pointer written the way the compiler
/// names subschemas (so a target compiled once is found again).
///
/// # Errors
/// A reference to another document, to an anchor, or to nothing.
pub(super) fn resolve<'s>(root: &'s Value, reference: &str) -> Result<(&'s Value, String), String> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(format!(
            "`$ref` `{reference}` points outside this schema, and only local references are supported; copy the schema it names into `$defs` and refer to it as `#/$defs/name`"
        ));
    };
    let fragment = percent_decode(fragment)?;
    if !fragment.is_empty() && !fragment.starts_with('/') {
        return Err(format!(
            "`$ref` `{reference}` names an anchor, and only JSON pointers are supported; refer to the subschema by its path, such as `#/$defs/name`"
        ));
    }
    let mut target = root;
    let mut pointer = String::new();
    for token in fragment.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let next = match target {
            Value::Object(map) => map.get(&token),
            Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        target = next.ok_or_else(|| {
            format!(
                "`$ref` `{reference}` points at nothing in this schema; add the subschema it names (under `$defs`) or correct the reference"
            )
        })?;
        pointer.push('/');
        pointer.push_str(&escape(&token));
    }
    Ok((target, pointer))
}

/// A chain of subschemas, each checked against the very value the one before it checks, that
/// comes back to where it started; `None` when there is none.
pub(super) fn in_place_cycle(nodes: &[Node]) -> Option<Vec<NodeId>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        nodes: &[Node],
        id: NodeId,
        marks: &mut [Mark],
        stack: &mut Vec<NodeId>,
    ) -> Option<Vec<NodeId>> {
        marks[id] = Mark::Open;
        stack.push(id);
        if let Node::Keywords(keywords) = &nodes[id] {
            for next in keywords.iter().flat_map(|k| k.in_place()) {
                match marks[next] {
                    Mark::Open => {
                        let start = stack.iter().position(|n| *n == next).unwrap_or(0);
                        return Some(stack[start..].to_vec());
                    }
                    Mark::New => {
                        if let Some(cycle) = visit(nodes, next, marks, stack) {
                            return Some(cycle);
                        }
                    }
                    Mark::Done => {}
                }
            }
        }
        stack.pop();
        marks[id] = Mark::Done;
        None
    }
    let mut marks = vec![Mark::New; nodes.len()];
    let mut stack = Vec::new();
    (0..nodes.len()).find_map(|id| {
        if marks[id] == Mark::New {
            visit(nodes, id, &mut marks, &mut stack)
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn local_pointers_resolve_and_others_are_refused() {
        let root = json!({"$defs": {"a/b": {"type": "string"}, "c d": {}}, "items": [true]});
        let (target, pointer) = resolve(&root, "#/$defs/a~1b").unwrap();
        assert_eq!(target, &json!({"type": "string"}));
        assert_eq!(pointer, "/$defs/a~1b");
        assert_eq!(resolve(&root, "#/$defs/c%20d").unwrap().1, "/$defs/c d");
        assert_eq!(resolve(&root, "#").unwrap().1, "");
        assert!(resolve(&root, "#/items/0").is_ok());
        assert!(
            resolve(&root, "other.json#/a")
                .unwrap_err()
                .contains("outside")
        );
        assert!(resolve(&root, "#anchor").unwrap_err().contains("anchor"));
        assert!(resolve(&root, "#/$defs/x").unwrap_err().contains("nothing"));
    }
}
