use cy_tools::tool;

/// A counter.
pub struct Counter(u32);

impl Counter {
    /// The count.
    #[tool]
    async fn count(&self) -> u32 {
        self.0
    }

    /// A new counter.
    #[tool]
    fn fresh() -> Self {
        Counter(0)
    }
}

fn main() {}
