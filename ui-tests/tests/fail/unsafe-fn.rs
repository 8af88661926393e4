use cy_tools::tool;

/// Peek at memory.
#[tool]
async unsafe fn peek(address: u64) -> String {
    address.to_string()
}

fn main() {}
