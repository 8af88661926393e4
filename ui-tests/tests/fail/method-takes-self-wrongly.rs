use cy_tools::tools;

/// A counter.
pub struct Counter(u32);

#[tools]
impl Counter {
    /// Add one.
    #[tool]
    async fn bump(&mut self) -> u32 {
        self.0 += 1;
        self.0
    }

    /// Take the counter.
    #[tool]
    fn take(self) -> u32 {
        self.0
    }

    /// Make a counter.
    #[tool]
    async fn zero() -> String {
        String::new()
    }
}

fn main() {}
