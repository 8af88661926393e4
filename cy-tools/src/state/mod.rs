//! Application state: objects of the application's own (a database pool, an HTTP client, its
//! configuration) that tools reach by type.
//!
//! An application puts them in a session's [`ToolContext`](crate::ToolContext)
//! ([`with_state`](crate::ToolContext::with_state)), or in a session factory's so every session
//! it builds has them. A tool declares the types it needs (a `State<'_, T>` parameter under
//! `#[tool]`, [`needs_state`](crate::definition::ToolDefinition::needs_state) by hand), and binding leaves a
//! tool out of a session that lacks one, with the reason, like a missing capability: a tool
//! that was bound always finds its state.

pub(crate) mod param;

// At the root: `State`.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

/// What application state must be: one object shared by every call of every session that holds
/// it, so `Send + Sync + 'static`. Implemented for every such type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be application state: it is shared by every call of every session, so it must be `Send + Sync + 'static`",
    label = "not `Send + Sync + 'static`",
    note = "wrap what is not in `Arc<Mutex<...>>` (or an atomic), and own what is borrowed"
)]
pub trait AppState: Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> AppState for T {}

/// A type of application state, as a definition declares it and binding checks it.
///
/// ```
/// use cy_tools::state::StateType;
/// struct Db;
/// assert_eq!(StateType::of::<Db>(), StateType::of::<Db>());
/// assert!(StateType::of::<Db>().name().ends_with("Db"));
/// ```
#[derive(Clone, Copy)]
pub struct StateType {
    id: fn() -> TypeId,
    name: fn() -> &'static str,
}

impl StateType {
    /// The state type `T`.
    pub const fn of<T: AppState>() -> StateType {
        StateType {
            id: TypeId::of::<T>,
            name: std::any::type_name::<T>,
        }
    }

    /// The type's id.
    pub fn id(self) -> TypeId {
        (self.id)()
    }

    /// The type's path, for messages (`my_app::Db`).
    pub fn name(self) -> &'static str {
        (self.name)()
    }
}

impl PartialEq for StateType {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id()
    }
}

impl Eq for StateType {}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

type Shared = Arc<dyn Any + Send + Sync>;

/// Application objects by type: what a context (or a session factory, for all its sessions)
/// holds. Cloning shares the objects.
///
/// ```
/// use cy_tools::state::{StateMap, StateType};
/// struct Config { region: &'static str }
/// let state = StateMap::new().insert(Config { region: "eu" });
/// assert_eq!(state.get::<Config>().unwrap().region, "eu");
/// assert!(state.contains(StateType::of::<Config>()));
/// assert_eq!(state.len(), 1);
/// ```
#[derive(Clone, Default)]
pub struct StateMap {
    // A handful of objects at most: a slice scanned in order beats hashing, and sharing it
    // keeps a context clone (one per session built) free of allocations.
    entries: Option<Arc<[(StateType, Shared)]>>,
}

impl StateMap {
    /// An empty map.
    pub fn new() -> Self {
        StateMap::default()
    }

    /// The map with `value` added, replacing an object of the same type.
    #[must_use]
    pub fn insert<T: AppState>(self, value: T) -> Self {
        self.with(StateType::of::<T>(), Arc::new(value))
    }

    /// The map with a shared `value` added, replacing an object of the same type.
    #[must_use]
    pub fn insert_shared<T: AppState>(self, value: Arc<T>) -> Self {
        self.with(StateType::of::<T>(), value)
    }

    pub(crate) fn with(&self, ty: StateType, value: Shared) -> Self {
        let mut entries: Vec<(StateType, Shared)> = self
            .iter_entries()
            .filter(|(existing, _)| *existing != ty)
            .cloned()
            .collect();
        entries.push((ty, value));
        StateMap {
            entries: Some(entries.into()),
        }
    }

    /// This map with every object of `other` added (`other`'s win on a shared type).
    #[must_use]
    pub fn merged(&self, other: &StateMap) -> Self {
        if self.is_empty() {
            return other.clone();
        }
        other.iter_entries().fold(self.clone(), |map, (ty, value)| {
            map.with(*ty, Arc::clone(value))
        })
    }

    /// The object of type `T`.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        self.iter_entries()
            .find(|(ty, _)| ty.id() == id)
            .and_then(|(_, value)| value.downcast_ref::<T>())
    }

    /// Whether there is an object of type `ty`.
    pub fn contains(&self, ty: StateType) -> bool {
        self.iter_entries().any(|(existing, _)| *existing == ty)
    }

    /// The types held.
    pub fn types(&self) -> impl Iterator<Item = StateType> + '_ {
        self.iter_entries().map(|(ty, _)| *ty)
    }

    /// How many objects.
    pub fn len(&self) -> usize {
        self.entries.as_ref().map_or(0, |e| e.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn iter_entries(&self) -> impl Iterator<Item = &(StateType, Shared)> {
        self.entries.iter().flat_map(|entries| entries.iter())
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.types()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_values_replace_earlier_ones_and_merging_keeps_both_sides() {
        let a = StateMap::new().insert(1u32).insert("x");
        let b = StateMap::new().insert(2u32).insert(3u64);
        assert_eq!(a.get::<u32>(), Some(&1));
        let merged = a.merged(&b);
        assert_eq!(merged.get::<u32>(), Some(&2));
        assert_eq!(merged.get::<&str>(), Some(&"x"));
        assert_eq!(merged.get::<u64>(), Some(&3));
        assert_eq!(merged.len(), 3);
        assert_eq!(a.get::<u64>(), None, "merging leaves the original alone");
        assert!(StateMap::new().merged(&b).contains(StateType::of::<u64>()));
    }
}
