//! What a tool argument's type may be: owned (the model's JSON is gone once it is read) and
//! concrete.

use syn::{GenericArgument, PathArguments, Type};

use crate::ast::last_segment;
use crate::errors::Errors;

/// Refuses types a model's JSON cannot be deserialized into without borrowing.
pub(crate) fn check_owned(ty: &Type, errors: &mut Errors) {
    if let Some(bad) = find_impl_trait(ty) {
        errors.spanned(
            bad,
            "a tool parameter cannot be `impl Trait`: the arguments are deserialized into one concrete type; name that type (for example `String` or `Vec<u64>`)",
        );
        return;
    }
    if let Some(bad) = find_reference(ty).or_else(|| find_borrow(ty)) {
        let hint = match bad {
            Type::Reference(r) if last_segment(&r.elem).is_some_and(|s| s.ident == "str") => {
                "use `String`".to_string()
            }
            Type::Reference(r) if matches!(&*r.elem, Type::Slice(_)) => {
                "use `Vec<...>`".to_string()
            }
            Type::Reference(r) if last_segment(&r.elem).is_some_and(|s| s.ident == "Path") => {
                "use `PathBuf`".to_string()
            }
            _ => "use an owned type".to_string(),
        };
        errors.spanned(
            bad,
            format!(
                "a tool parameter cannot borrow: the arguments are deserialized from the model's JSON into owned values that outlive it; {hint}"
            ),
        );
    }
}

/// Any reference inside `ty`, `'static` ones too: serde cannot hand out `&'static` data
/// from a model's JSON.
fn find_reference(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(_) => Some(ty),
        other => children(other).into_iter().find_map(find_reference),
    }
}

fn find_impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        other => children(other).into_iter().find_map(find_impl_trait),
    }
}

/// A reference, or a type with a lifetime other than `'static`, inside `ty`.
fn find_borrow(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) if r.lifetime.as_ref().is_none_or(|l| l.ident != "static") => Some(ty),
        Type::Path(p) => {
            let borrowed = p.path.segments.iter().any(|s| match &s.arguments {
                PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .any(|arg| matches!(arg, GenericArgument::Lifetime(l) if l.ident != "static")),
                _ => false,
            });
            if borrowed {
                Some(ty)
            } else {
                children(ty).into_iter().find_map(find_borrow)
            }
        }
        other => children(other).into_iter().find_map(find_borrow),
    }
}

/// The types directly inside `ty`.
pub(crate) fn children(ty: &Type) -> Vec<&Type> {
    match ty {
        Type::Array(a) => vec![&*a.elem],
        Type::Slice(s) => vec![&*s.elem],
        Type::Group(g) => vec![&*g.elem],
        Type::Paren(p) => vec![&*p.elem],
        Type::Ptr(p) => vec![&*p.elem],
        Type::Reference(r) => vec![&*r.elem],
        Type::Tuple(t) => t.elems.iter().collect(),
        Type::Path(p) => p
            .path
            .segments
            .iter()
            .flat_map(|s| match &s.arguments {
                PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|arg| match arg {
                        GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}
