//! A capability set cannot be a type of one's own: `CapabilitySet` is sealed, and so are the
//! grant traits built on it.
use cy_tools::capability::{Capabilities, CapabilitySet, grants};

enum Sneaky {}

impl CapabilitySet for Sneaky {
    const CAPABILITIES: Capabilities = Capabilities::NONE;
}

impl grants::Chat for Sneaky {}

fn main() {}
