//! The core's root names, listed: a name added to (or dropped from) the root is a visible diff
//! here, and the root stays at most 31 names (30 until resources and prompts, a domain beside
//! tools, got their module `catalog`). Read from `src/lib.rs` (and every
//! `#[macro_export]` macro, which lands at the root wherever it is written); what is
//! `#[doc(hidden)]` (`__private`, the macros' helpers) is not counted.

use std::path::Path;

use syn::{Item, UseTree, Visibility};

/// The root, sorted: modules, then items (byte order).
const EXPECTED: &[&str] = &[
    "approval",
    "binding",
    "call",
    "capability",
    "catalog",
    "definition",
    "dialect",
    "memory",
    "prelude",
    "services",
    "session",
    "state",
    "BoundTool",
    "BoxFuture",
    "CallInfo",
    "CancellationToken",
    "Ctx",
    "Json",
    "Session",
    "SessionIdentity",
    "SessionSpec",
    "State",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "Toolset",
    "tool",
    "tools",
];

fn hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("doc")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "hidden")
    })
}

fn leaves(tree: &UseTree, out: &mut Vec<String>) {
    match tree {
        UseTree::Path(path) => leaves(&path.tree, out),
        UseTree::Name(name) => out.push(name.ident.to_string()),
        UseTree::Rename(rename) => out.push(rename.rename.to_string()),
        UseTree::Group(group) => group.items.iter().for_each(|t| leaves(t, out)),
        UseTree::Glob(_) => out.push("*".to_string()),
    }
}

fn root_names() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = syn::parse_file(&std::fs::read_to_string(src.join("lib.rs")).unwrap()).unwrap();
    let (mut modules, mut items) = (Vec::new(), Vec::new());
    for item in &lib.items {
        let (vis, attrs, name) = match item {
            Item::Mod(m) => (&m.vis, &m.attrs, Some(m.ident.to_string())),
            Item::Use(u) if !hidden(&u.attrs) && matches!(u.vis, Visibility::Public(_)) => {
                leaves(&u.tree, &mut items);
                continue;
            }
            Item::Type(t) => (&t.vis, &t.attrs, Some(t.ident.to_string())),
            Item::Fn(f) => (&f.vis, &f.attrs, Some(f.sig.ident.to_string())),
            Item::Struct(s) => (&s.vis, &s.attrs, Some(s.ident.to_string())),
            Item::Enum(e) => (&e.vis, &e.attrs, Some(e.ident.to_string())),
            Item::Trait(t) => (&t.vis, &t.attrs, Some(t.ident.to_string())),
            Item::Const(c) => (&c.vis, &c.attrs, Some(c.ident.to_string())),
            Item::Static(s) => (&s.vis, &s.attrs, Some(s.ident.to_string())),
            _ => continue,
        };
        if matches!(vis, Visibility::Public(_)) && !hidden(attrs) {
            let name = name.unwrap_or_default();
            if matches!(item, Item::Mod(_)) {
                modules.push(name);
            } else {
                items.push(name);
            }
        }
    }
    // `#[macro_export]` puts a macro at the root from any file.
    for entry in walk(&src) {
        let file = syn::parse_file(&std::fs::read_to_string(&entry).unwrap()).unwrap();
        for item in file.items {
            if let Item::Macro(m) = item
                && m.attrs.iter().any(|a| a.path().is_ident("macro_export"))
                && !hidden(&m.attrs)
            {
                items.push(m.ident.map(|i| i.to_string()).unwrap_or_default());
            }
        }
    }
    modules.sort();
    items.sort();
    modules.extend(items);
    modules
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

#[test]
fn the_root_holds_these_names_and_at_most_31() {
    let names = root_names();
    assert_eq!(
        names, EXPECTED,
        "the core's root changed: update EXPECTED (and the crate docs) if that is meant"
    );
    assert!(
        names.len() <= 31,
        "the core's root has {} names; keep it at 31 or fewer (put the new name in a module)",
        names.len()
    );
}
