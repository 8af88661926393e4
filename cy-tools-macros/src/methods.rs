//! `#[tools]` on an `impl` block: each method marked `#[tool]` becomes a tool whose `&self` is
//! the object of that type the application gives the session, as a `State<'_, Self>` would be.
//! The methods stay in the `impl`; what is generated for them goes after it, in the module,
//! where `Self` means nothing, so it is written as the `impl`'s type there.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{ImplItem, ItemFn, ItemImpl, Meta, Type};

use crate::ast::{Method, last_segment};
use crate::errors::Errors;
use crate::expand::{Expanded, expand};

pub(crate) fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.spanned(
            &args,
            "`#[tools]` takes no options: give each tool its options in `#[tool(...)]` on its method",
        );
    }
    let mut item: ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(err) => {
            let message = syn::Error::new(
                err.span(),
                format!("`#[tools]` goes on an `impl` block: {err}"),
            )
            .into_compile_error();
            return quote!(#message #input);
        }
    };
    let Some(type_name) = impl_type_name(&item, &mut errors) else {
        // The methods as written, without their `#[tool]`: one error, not one per method.
        for impl_item in &mut item.items {
            if let ImplItem::Fn(method) = impl_item {
                method.attrs.retain(|attr| !is_tool_attr(attr));
            }
        }
        let errors = errors.into_compile_errors();
        return quote!(#errors #item);
    };
    let self_ty = item.self_ty.clone();
    let mut generated = TokenStream::new();
    let mut found = false;
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(at) = method.attrs.iter().position(is_tool_attr) else {
            continue;
        };
        found = true;
        let attr = method.attrs.remove(at);
        let tool_args = match attr.meta {
            Meta::Path(_) => TokenStream::new(),
            Meta::List(list) => list.tokens,
            Meta::NameValue(value) => {
                errors.spanned(
                    &value,
                    "write the options as `#[tool(...)]`, or `#[tool]` for none",
                );
                TokenStream::new()
            }
        };
        let function = ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            modifiers: method.modifiers.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let context = Method {
            self_ty: self_ty.clone(),
            type_name: type_name.clone(),
        };
        let Expanded {
            function, items, ..
        } = expand(crate::attr::Kind::Tool, tool_args, function, Some(context));
        method.attrs = function.attrs;
        method.sig = function.sig;
        generated.extend(replace_self(items, &self_ty));
    }
    if !found {
        errors.spanned(
            &item.self_ty,
            "`#[tools]` found no method marked `#[tool]`: mark each method that is a tool with `#[tool]`",
        );
    }
    let errors = errors.into_compile_errors();
    quote!(#errors #item #generated)
}

/// The last segment of the type of an inherent, non-generic `impl`; `None` (with the error)
/// for anything else.
fn impl_type_name(item: &ItemImpl, errors: &mut Errors) -> Option<syn::Ident> {
    if let Some((path, _)) = &item.trait_ {
        errors.spanned(
            path,
            "`#[tools]` goes on an inherent `impl Type { ... }`, not on a trait's impl: move the tool methods into an `impl` of their own",
        );
        return None;
    }
    if item.generics.lt_token.is_some() || item.generics.where_clause.is_some() {
        errors.spanned(
            &item.generics,
            "`#[tools]` cannot go on a generic `impl`: each tool's schema and state type are fixed at compile time; write the `impl` for one concrete type",
        );
        return None;
    }
    match &*item.self_ty {
        Type::Path(path) if path.qself.is_none() => last_segment(&item.self_ty).map(|segment| {
            if !segment.arguments.is_none() {
                errors.spanned(
                    &item.self_ty,
                    "`#[tools]` needs a type without generic arguments: the session holds one object of it",
                );
            }
            segment.ident.clone()
        }),
        _ => {
            errors.spanned(
                &item.self_ty,
                "`#[tools]` goes on an `impl` of a named type (`impl Weather { ... }`)",
            );
            None
        }
    }
}

/// `#[tool]` or a path ending in it (`#[cy_tools::tool]`).
fn is_tool_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

/// `tokens` with `Self` written as `self_ty`: `<Weather>` before `::`, `Weather` elsewhere.
fn replace_self(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    let mut out = TokenStream::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Ident(ident) if ident == "Self" => {
                let before_path =
                    matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                if before_path {
                    out.extend(quote!(<#self_ty>));
                } else {
                    self_ty.to_tokens(&mut out);
                }
            }
            TokenTree::Group(group) => {
                let mut replaced =
                    Group::new(group.delimiter(), replace_self(group.stream(), self_ty));
                replaced.set_span(group.span());
                out.extend([TokenTree::Group(replaced)]);
            }
            other => out.extend([other]),
        }
    }
    out
}
