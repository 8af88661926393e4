//! An accumulator of compile errors, so one expansion reports every problem at once.

use std::fmt::Display;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// Errors collected while parsing and checking one `#[tool]` function.
#[derive(Default)]
pub(crate) struct Errors {
    first: Option<syn::Error>,
}

impl Errors {
    /// Adds `error` (which may itself hold several).
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.first {
            Some(first) => first.combine(error),
            None => self.first = Some(error),
        }
    }

    /// Adds an error at `span`.
    pub(crate) fn at(&mut self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Adds an error covering all of `tokens`.
    pub(crate) fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// One `compile_error!` per collected error.
    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.first
            .map(syn::Error::into_compile_error)
            .unwrap_or_default()
    }
}

/// The closest of `candidates` to `given`, if one is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(given: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let given_lower = given.to_ascii_lowercase();
    candidates
        .iter()
        .map(|c| (*c, distance(&given_lower, c)))
        .filter(|(c, d)| {
            *d <= (c.len().max(given.len()) / 3).max(1)
                || (given.len() >= 3 && (c.starts_with(&given_lower) || given_lower.starts_with(c)))
        })
        .min_by_key(|(_, d)| *d)
        .map(|(c, _)| c)
}

/// Levenshtein distance, counting a swap of two neighbours as one edit.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// `` `a`, `b` or `c` `` for a message.
pub(crate) fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let keys = ["name", "description", "capabilities", "read_only"];
        assert_eq!(did_you_mean("nmae", &keys), Some("name"));
        assert_eq!(did_you_mean("readonly", &keys), Some("read_only"));
        assert_eq!(did_you_mean("desc", &keys), Some("description"));
        assert_eq!(did_you_mean("caps", &keys), None);
        assert_eq!(did_you_mean("zzz", &keys), None);
    }

    #[test]
    fn lists_read_naturally() {
        assert_eq!(one_of(&["a"]), "`a`");
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
