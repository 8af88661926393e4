use std::rc::Rc;

use cy_tools::prelude::*;

/// Count the calls.
#[tool]
async fn count(counter: State<'_, Rc<u32>>) -> String {
    counter.to_string()
}

fn main() {}
