use cy_tools::tool;

struct Counter;

impl Counter {
    /// Count.
    #[tool]
    async fn count(&self) -> String {
        "1".to_string()
    }
}

fn main() {}
