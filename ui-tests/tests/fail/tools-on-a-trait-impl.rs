use cy_tools::tools;

/// A counter.
pub struct Counter(u32);

#[tools]
impl Default for Counter {
    fn default() -> Self {
        Counter(0)
    }
}

/// A box of anything.
pub struct Boxed<T>(T);

#[tools]
impl<T: Send + Sync + 'static> Boxed<T> {
    /// Say hello.
    #[tool]
    async fn hello(&self) -> String {
        String::new()
    }
}

/// Nothing here is a tool.
pub struct Plain;

#[tools]
impl Plain {
    fn helper(&self) {}
}

fn main() {}
