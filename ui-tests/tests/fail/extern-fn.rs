use cy_tools::tool;

/// Called from C.
#[tool]
extern "C" fn from_c(value: u64) -> u64 {
    value
}

fn main() {}
