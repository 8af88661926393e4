//! `ToolName`: the name a bound tool answers to, shared without counting when it is the
//! definition's own.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A tool's name in a session: the definition's own (`'static`, as every linked tool's is), or
/// another it was registered under (a deployment's renaming). Binding copies one per tool per
/// session: the own name is copied as it is, where a shared string would take an atomic count
/// to copy and another to drop.
#[derive(Clone)]
pub(crate) enum ToolName {
    Own(&'static str),
    Given(Arc<str>),
}

impl ToolName {
    /// `name` for `definition_name`'s definition: its own when they are the same.
    pub(crate) fn new(name: &str, definition_name: &'static str) -> Self {
        if name == definition_name {
            ToolName::Own(definition_name)
        } else {
            ToolName::Given(Arc::from(name))
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        match self {
            ToolName::Own(name) => name,
            ToolName::Given(name) => name,
        }
    }
}

impl std::ops::Deref for ToolName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

// Compared and hashed as the text, so a map keyed by names finds one by a `&str`.
impl PartialEq for ToolName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ToolName {}

impl Hash for ToolName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Borrow<str> for ToolName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for ToolName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::ToolName;
    use std::collections::HashMap;

    #[test]
    fn an_own_and_a_given_name_read_and_compare_as_their_text() {
        let own = ToolName::new("read_file", "read_file");
        let given = ToolName::new("read", "read_file");
        assert!(matches!(own, ToolName::Own(_)));
        assert!(matches!(given, ToolName::Given(_)));
        assert_eq!(&*own, "read_file");
        assert_eq!(&*given, "read");
        assert_eq!(own, ToolName::Given("read_file".into()));
        let map: HashMap<ToolName, u8> = [(own, 1), (given, 2)].into();
        assert_eq!(map.get("read_file"), Some(&1));
        assert_eq!(map.get("read"), Some(&2));
        assert_eq!(format!("{:?}", ToolName::Own("x")), "\"x\"");
    }
}
