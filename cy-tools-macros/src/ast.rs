//! The annotated function as a model: which parameter is the context, which carries per-call
//! data, which receives a context field directly, and which are the tool's arguments.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{
    FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, PathSegment, Type, TypeParamBound,
};

use crate::caps::Cap;
use crate::doc::Description;
use crate::errors::Errors;
use crate::param_attrs::{ParamAttrs, take_param_attrs};

/// The function after its helper attributes were taken off its parameters.
pub(crate) struct ToolFn {
    /// The function as it will be emitted (modulo the `Ctx` rewrite).
    pub(crate) item: ItemFn,
    pub(crate) params: Vec<Param>,
    /// Set when the function is a method of an `impl` marked `#[tools]`.
    pub(crate) method: Option<Method>,
}

/// The `impl` a method tool sits in.
pub(crate) struct Method {
    /// The type the `impl` is for, as written (`Weather`, `crate::Weather`).
    pub(crate) self_ty: Box<Type>,
    /// Its last segment (`Weather`), for the generated items' names.
    pub(crate) type_name: Ident,
}

/// One parameter of the function.
pub(crate) struct Param {
    /// Its position in `item.sig.inputs`.
    pub(crate) index: usize,
    pub(crate) kind: ParamKind,
    pub(crate) attrs: ParamAttrs,
    /// The whole parameter without its helper attributes, for errors about it.
    pub(crate) tokens: TokenStream,
}

/// What a parameter is for, decided by its type and attributes.
pub(crate) enum ParamKind {
    /// `self`, `&self`, `&mut self`, `self: Arc<Self>`: only `&self`, in a `#[tools]` impl,
    /// is valid on a tool.
    Receiver(Box<syn::Receiver>),
    /// `Ctx<'_>`: the narrowed context.
    Ctx,
    /// `CallInfo`: the call's id and cancellation token.
    Call,
    /// `&dyn Sandbox` and friends: one context field, handed over directly.
    Service(Cap),
    /// `State<'_, T>`: the application object of type `T`; `None` when `State` names no type.
    State(Option<Box<Type>>),
    /// `#[args] p: MyParams`: an existing parameter struct, taken whole.
    Args(Box<Type>),
    /// Anything else: one argument the model sends, a field of the generated parameter struct.
    Field(Field),
}

pub(crate) struct Field {
    /// The binding's name; `None` when the parameter is a pattern.
    pub(crate) ident: Option<Ident>,
    pub(crate) pat: Box<Pat>,
    pub(crate) ty: Box<Type>,
}

impl Field {
    /// The name the model sees: `rename`, or the binding without `r#` and without the leading
    /// underscores that only tell rustc a parameter may go unused (`_mode` is `mode`).
    pub(crate) fn wire_name(&self, attrs: &ParamAttrs) -> Option<String> {
        if let Some(rename) = &attrs.rename {
            return Some(rename.value());
        }
        self.ident.as_ref().map(|ident| {
            let name = unraw(ident);
            match name.trim_start_matches('_') {
                "" => name,
                trimmed => trimmed.to_string(),
            }
        })
    }
}

/// `r#type` → `type`.
pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    match text.strip_prefix("r#") {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

impl ToolFn {
    /// Models `item`, taking the helper attributes off its parameters.
    pub(crate) fn new(mut item: ItemFn, method: Option<Method>, errors: &mut Errors) -> ToolFn {
        let mut params = Vec::with_capacity(item.sig.inputs.len());
        for (index, input) in item.sig.inputs.iter_mut().enumerate() {
            let (kind, attrs) = match input {
                FnArg::Receiver(receiver) => {
                    let attrs = take_param_attrs(&mut receiver.attrs, errors);
                    (ParamKind::Receiver(Box::new(receiver.clone())), attrs)
                }
                FnArg::Typed(typed) => {
                    let attrs = take_param_attrs(&mut typed.attrs, errors);
                    let kind = classify(&typed.pat, &typed.ty, &attrs);
                    if matches!(kind, ParamKind::Call | ParamKind::State(Some(_))) {
                        elide_lifetime(&mut typed.ty);
                    }
                    (kind, attrs)
                }
            };
            params.push(Param {
                index,
                kind,
                attrs,
                tokens: input.to_token_stream(),
            });
        }
        ToolFn {
            item,
            params,
            method,
        }
    }

    pub(crate) fn fields(&self) -> impl Iterator<Item = (&Param, &Field)> {
        self.params.iter().filter_map(|p| match &p.kind {
            ParamKind::Field(f) => Some((p, f)),
            _ => None,
        })
    }

    pub(crate) fn args_param(&self) -> Option<(&Param, &Type)> {
        self.params.iter().find_map(|p| match &p.kind {
            ParamKind::Args(ty) => Some((p, &**ty)),
            _ => None,
        })
    }

    /// The `&self` of a method tool.
    pub(crate) fn receiver(&self) -> Option<&Param> {
        self.params
            .iter()
            .find(|p| matches!(p.kind, ParamKind::Receiver(_)))
    }

    /// The fn's doc comment, as the tool description.
    pub(crate) fn doc(&self) -> Option<Description> {
        Description::of(&self.item.attrs)
    }
}

fn classify(pat: &Pat, ty: &Type, attrs: &ParamAttrs) -> ParamKind {
    if attrs.args.is_some() {
        return ParamKind::Args(Box::new(ty.clone()));
    }
    if let Some(segment) = last_segment(ty) {
        if segment.ident == "Ctx" {
            return ParamKind::Ctx;
        }
        if segment.ident == "CallInfo" {
            return ParamKind::Call;
        }
        if segment.ident == "State" {
            return ParamKind::State(state_type(segment).map(Box::new));
        }
    }
    if let Some(cap) = service(ty) {
        return ParamKind::Service(cap);
    }
    let ident = match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        _ => None,
    };
    ParamKind::Field(Field {
        ident,
        pat: Box::new(pat.clone()),
        ty: Box::new(ty.clone()),
    })
}

/// The `T` of `State<'_, T>` (or `State<T>`).
fn state_type(segment: &PathSegment) -> Option<Type> {
    let PathArguments::AngleBracketed(generic) = &segment.arguments else {
        return None;
    };
    let mut types = generic.args.iter().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty.clone()),
        _ => None,
    });
    let ty = types.next()?;
    types.next().is_none().then_some(ty)
}

/// `CallInfo` → `CallInfo<'_>`, `State<Db>` → `State<'_, Db>`: an `async fn` cannot leave a
/// path's lifetime implicit, and spelling it out adds nothing for the reader.
fn elide_lifetime(ty: &mut Type) {
    let Type::Path(path) = ty else {
        return;
    };
    let Some(segment) = path.path.segments.last_mut() else {
        return;
    };
    let ident = &segment.ident;
    match &mut segment.arguments {
        PathArguments::None => {
            *segment = syn::parse_quote_spanned!(ident.span()=> #ident<'_>);
        }
        PathArguments::AngleBracketed(generic)
            if !generic
                .args
                .iter()
                .any(|a| matches!(a, GenericArgument::Lifetime(_))) =>
        {
            generic
                .args
                .insert(0, GenericArgument::Lifetime(syn::parse_quote!('_)));
        }
        _ => {}
    }
}

/// The last segment of a plain path type: `Ctx` in `cy_tools::Ctx<'_>`.
pub(crate) fn last_segment(ty: &Type) -> Option<&PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_segment(&g.elem),
        Type::Paren(p) => last_segment(&p.elem),
        _ => None,
    }
}

/// The context field a `&dyn Sandbox`-style parameter asks for.
fn service(ty: &Type) -> Option<Cap> {
    let Type::Reference(reference) = ty else {
        return None;
    };
    if reference.mutability.is_some() {
        return None;
    }
    let name = match &*reference.elem {
        Type::TraitObject(object) => object.bounds.iter().find_map(|b| match b {
            TypeParamBound::Trait(t) => t.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        })?,
        elem => last_segment(elem)?.ident.to_string(),
    };
    let is_object = matches!(&*reference.elem, Type::TraitObject(_));
    Cap::ALL
        .into_iter()
        .find(|c| c.service() == name && (is_object == (*c != Cap::Session)))
}
