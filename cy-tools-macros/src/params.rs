//! The parameter struct of a tool with inline arguments: one field per argument, with the
//! parameter's docs, `rename`, `default`, `#[schemars]` constraints and `#[cfg]`, deriving
//! through the runtime's re-exports.

use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident};

use crate::ast::{ToolFn, unraw};
use crate::param_attrs::DefaultValue;

/// `tokens`, every one of them at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            }
            token.set_span(span);
            token
        })
        .collect()
}

/// The struct named `ident` and what it needs: a reader type per argument, and the functions
/// that give the defaults.
pub(crate) fn params_struct(
    tool: &ToolFn,
    ident: &Ident,
    name: &str,
    vis: &syn::Visibility,
    krate: &TokenStream,
    cfgs: &[Attribute],
) -> TokenStream {
    let krate_text = krate.to_string().replace(' ', "");
    let serde_crate = Literal::string(&format!("{krate_text}::__private::serde"));
    let schemars_crate = Literal::string(&format!("{krate_text}::__private::schemars"));
    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    let mut readers = Vec::new();
    for (param, field) in tool.fields() {
        // `valid` refused patterns, so every field has a name.
        let Some(field_ident) = field.ident.as_ref() else {
            continue;
        };
        let ty = &field.ty;
        let param_cfgs = &param.attrs.cfgs;
        // The argument's reader: the one place its type must be `Deserialize` and
        // `JsonSchema`, spanned on the argument, so a missing derive is reported there and in
        // the user's words (see `cy_tools::definition::Arg`).
        let reader = format_ident!("__{}Arg_{}", ident, unraw(field_ident));
        let arg_ty = quote!(#krate::__private::Arg<#reader>);
        readers.push(quote_spanned! {ty.span()=>
            #(#cfgs)*
            #(#param_cfgs)*
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            enum #reader {}
            #(#cfgs)*
            #(#param_cfgs)*
            impl #krate::__private::ArgReader for #reader {
                type Value = #ty;
                fn deserialize<'de, D>(deserializer: D) -> ::core::result::Result<#ty, D::Error>
                where
                    D: #krate::__private::serde::Deserializer<'de>,
                {
                    #krate::__private::deserialize_arg::<#ty, D>(deserializer)
                }
                const SCHEMA: #krate::__private::ArgSchemaFns =
                    #krate::__private::ArgSchemaFns::of::<#ty>();
            }
        });
        let docs = &param.attrs.docs;
        let field_attrs = &param.attrs.field_attrs;
        // The name the model sees, when it is not the binding: a rename, or a binding whose
        // leading underscores only tell rustc it may go unused.
        let wire = field.wire_name(&param.attrs).unwrap_or_default();
        let rename = (wire != unraw(field_ident)).then(|| {
            let wire = Literal::string(&wire);
            quote!(#[serde(rename = #wire)])
        });
        let default = param.attrs.default.as_ref().map(|(value, span)| {
            let fn_ident = format_ident!("__default_{}", unraw(field_ident));
            let value = match value {
                // Spanned on `default`, the crate's path too, so a type without `Default` is
                // reported there.
                DefaultValue::Trait => {
                    let krate = respan(krate.clone(), *span);
                    quote_spanned!(*span=> #krate::__private::default_arg())
                }
                // `default = "main"` for a `String`: a literal is a `&str`, the field owns.
                DefaultValue::Expr(expr) => match &**expr {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(_),
                        ..
                    }) => quote_spanned!(expr.span()=> ::core::convert::Into::into(#expr)),
                    _ => expr.to_token_stream(),
                },
            };
            default_fns.push(quote! {
                #(#param_cfgs)*
                #[doc(hidden)]
                fn #fn_ident() -> #arg_ty { #krate::__private::Arg::new(#value) }
            });
            let path = Literal::string(&format!("{ident}::{fn_ident}"));
            quote!(#[serde(default = #path)])
        });
        fields.push(quote! {
            #(#param_cfgs)*
            #(#docs)*
            #(#field_attrs)*
            #rename
            #default
            #field_ident: #arg_ty,
        });
    }
    let doc = format!("The arguments of the `{name}` tool, generated by `#[tool]`.");
    let default_impl = (!default_fns.is_empty()).then(|| {
        quote! {
            #(#cfgs)*
            impl #ident {
                #(#default_fns)*
            }
        }
    });
    quote! {
        #(#cfgs)*
        #[doc = #doc]
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        #vis struct #ident {
            #(#fields)*
        }
        #(#readers)*
        #default_impl
    }
}
