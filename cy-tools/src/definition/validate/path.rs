//! Where in the instance a violation is, written the way the typed path writes it.

/// Where in the instance a violation is, as a chain of borrowed steps: nothing is built unless
/// a violation is reported.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// `items[0].name`, the form the typed path uses: an all-digit step is an index.
    pub(super) fn render(&self) -> String {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root => break,
                Path::Key(parent, key) => {
                    steps.push(Step::Key(key));
                    at = parent;
                }
                Path::Index(parent, index) => {
                    steps.push(Step::Index(*index));
                    at = parent;
                }
            }
        }
        let mut out = String::new();
        for step in steps.iter().rev() {
            match step {
                Step::Index(index) => out.push_str(&format!("[{index}]")),
                Step::Key(key) if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) => {
                    out.push_str(&format!("[{key}]"));
                }
                Step::Key(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                }
            }
        }
        out
    }
}

enum Step<'a> {
    Key(&'a str),
    Index(usize),
}
