//! The capabilities, as the macros know them, and `capability_set!`.
//!
//! `cy_tools` writes each capability once, in its capability table; a proc-macro crate cannot
//! read that table, so this is the one copy here, and `cy_tools` has a test that the two agree
//! (through [`names`], which `__private::capability_names!` expands to).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitBool, Token, Visibility};

use crate::errors::{Errors, did_you_mean, one_of};

/// One context field a tool may be granted, in the order of `cy_tools::capability::Capability::ALL` (the
/// order of `cy_tools::capability::Caps`'s flags).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cap {
    Env,
    ExecuteCode,
    Session,
    Factory,
    Log,
    Coordinator,
    Chat,
}

impl Cap {
    pub(crate) const ALL: [Cap; 7] = [
        Cap::Env,
        Cap::ExecuteCode,
        Cap::Session,
        Cap::Factory,
        Cap::Log,
        Cap::Coordinator,
        Cap::Chat,
    ];

    /// The name in `capabilities(...)`, which is also the `Ctx` accessor.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Cap::Env => "env",
            Cap::ExecuteCode => "execute_code",
            Cap::Session => "session",
            Cap::Factory => "factory",
            Cap::Log => "log",
            Cap::Coordinator => "coordinator",
            Cap::Chat => "chat",
        }
    }

    /// The type a parameter names to receive this field directly (`&dyn Sandbox`).
    pub(crate) fn service(self) -> &'static str {
        match self {
            Cap::Env => "Sandbox",
            Cap::ExecuteCode => "CodeExecutor",
            Cap::Session => "SessionIdentity",
            Cap::Factory => "ChildSessionFactory",
            Cap::Log => "ExecutionLog",
            Cap::Coordinator => "Coordinator",
            Cap::Chat => "Chat",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Cap> {
        Cap::ALL.into_iter().find(|c| c.name() == name)
    }

    pub(crate) fn names() -> Vec<&'static str> {
        Cap::ALL.iter().map(|c| c.name()).collect()
    }

    /// The error for a name that is no capability, with the closest one when it is a typo.
    pub(crate) fn unknown(given: &str) -> String {
        let names = Cap::names();
        let hint = match did_you_mean(given, &names) {
            Some(close) => format!("did you mean `{close}`? "),
            None => String::new(),
        };
        format!(
            "unknown capability `{given}`: {hint}valid capabilities are {}",
            one_of(&names)
        )
    }
}

/// The `cy_tools::capability::Caps` type that grants exactly `granted`: one `bool` per
/// capability, in table order.
pub(crate) fn caps_type(krate: &TokenStream, granted: &[Cap], span: Span) -> TokenStream {
    let flags = Cap::ALL
        .iter()
        .map(|cap| LitBool::new(granted.contains(cap), span));
    quote!(#krate::__private::Caps<#(#flags),*>)
}

/// `capability_set!($crate, #[doc] pub Name: env, chat)`, as `cy_tools::capability::capability_set!`
/// forwards it.
struct SetInput {
    krate: TokenStream,
    attrs: Vec<Attribute>,
    vis: Visibility,
    name: Ident,
    caps: Punctuated<Ident, Token![,]>,
}

impl Parse for SetInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        // `$crate` arrives as one identifier-like token; keep it as it came.
        let mut krate = TokenStream::new();
        while !input.peek(Token![,]) {
            krate.extend([input.parse::<TokenTree>()?]);
        }
        input.parse::<Token![,]>()?;
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let name = input.parse()?;
        input.parse::<Token![:]>().map_err(|err| {
            syn::Error::new(
                err.span(),
                "write `capability_set!(Name: env, chat)`: the set's name, a colon, then the capabilities",
            )
        })?;
        let caps = Punctuated::parse_terminated(input)?;
        Ok(SetInput {
            krate,
            attrs,
            vis,
            name,
            caps,
        })
    }
}

/// `capability_set!`: a type alias of the `Caps` type that grants the listed capabilities.
pub(crate) fn capability_set(input: TokenStream) -> TokenStream {
    let input: SetInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(err) => return err.into_compile_error(),
    };
    let mut errors = Errors::default();
    let mut granted = Vec::new();
    for ident in &input.caps {
        let name = ident.to_string();
        match Cap::from_name(&name) {
            Some(cap) if granted.contains(&cap) => errors.at(
                ident.span(),
                format!("capability `{name}` is listed twice: remove one"),
            ),
            Some(cap) => granted.push(cap),
            None => errors.at(ident.span(), Cap::unknown(&name)),
        }
    }
    let SetInput {
        krate,
        attrs,
        vis,
        name,
        ..
    } = &input;
    let ty = caps_type(krate, &granted, name.span());
    let errors = errors.into_compile_errors();
    quote! {
        #errors
        #(#attrs)*
        #vis type #name = #ty;
    }
}

/// The names, in order, as a `&[&str]` expression: what `cy_tools` checks its table against.
pub(crate) fn names() -> TokenStream {
    let names = Cap::names();
    quote!(&[#(#names),*])
}
