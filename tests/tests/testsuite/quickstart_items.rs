//! The README's quickstart names at most four framework items, besides the prelude import and
//! `#[tool]`'s arguments: a new user meets the attribute, a session, a call and serving, and
//! nothing of the layer below (contexts, identities, call ids, tokens).
//!
//! Counted from the quickstart block itself (parsed with `syn`): every path into a `cy_tools*`
//! crate (its last segment), every name the prelude brings that the code uses, every method
//! called that is not the standard library's, and `#[tool]` itself.

use std::collections::BTreeSet;
use std::path::Path;

use syn::visit::Visit;

/// What the quickstart is allowed, and uses.
const EXPECTED: [&str; 4] = ["call", "local_session", "serve_stdio", "tool"];

/// Methods of the standard library the quickstart may call without counting them.
const STD_METHODS: &[&str] = &["to_string", "unwrap", "clone", "into"];

fn quickstart() -> String {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let after = readme
        .split_once("## Quickstart")
        .expect("the README has a Quickstart section")
        .1;
    after
        .split_once("```rust,no_run\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .expect("the quickstart is a `rust,no_run` block")
        .0
        .to_string()
}

/// The names `cy_tools::prelude` brings.
fn prelude() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cy-tools/src/lib.rs"),
    )
    .unwrap();
    let file = syn::parse_file(&lib).unwrap();
    let mut names = BTreeSet::new();
    for item in file.items {
        if let syn::Item::Mod(m) = item
            && m.ident == "prelude"
        {
            for item in m.content.map(|(_, items)| items).unwrap_or_default() {
                if let syn::Item::Use(u) = item {
                    leaves(&u.tree, &mut names);
                }
            }
        }
    }
    names
}

fn leaves(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(p) => leaves(&p.tree, out),
        syn::UseTree::Name(n) => {
            out.insert(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            out.insert(r.rename.to_string());
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, out)),
        syn::UseTree::Glob(_) => {}
    }
}

#[derive(Default)]
struct Items {
    prelude: BTreeSet<String>,
    found: BTreeSet<String>,
}

impl Items {
    fn path(&mut self, path: &syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match segments.as_slice() {
            [first, .., last] if first.starts_with("cy_tools") => {
                self.found.insert(last.clone());
            }
            [only] if self.prelude.contains(only) => {
                self.found.insert(only.clone());
            }
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for Items {
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {
        // The prelude import does not count.
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        // `#[tool(...)]` counts, its arguments do not.
        self.path(attr.path());
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.path(path);
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.path(&mac.path);
        // Macro arguments are tokens to `syn`: read those that are expressions (`println!`'s).
        use syn::parse::Parser as _;
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = parser.parse2(mac.tokens.clone()) {
            args.iter().for_each(|arg| self.visit_expr(arg));
        }
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        if !STD_METHODS.contains(&name.as_str()) {
            self.found.insert(name);
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

#[test]
fn the_quickstart_names_four_framework_items() {
    let code = quickstart();
    assert!(
        code.lines().count() <= 25,
        "the quickstart is {} lines",
        code.lines().count()
    );
    let file = syn::parse_file(&code).expect("the quickstart parses");
    let mut items = Items {
        prelude: prelude(),
        ..Items::default()
    };
    items.visit_file(&file);
    let found: Vec<&str> = items.found.iter().map(String::as_str).collect();
    assert_eq!(found, EXPECTED, "the quickstart's framework items");
    assert!(found.len() <= 4);
}
