//! Tool names follow MCP's rule: letters, digits, `_`, `-` and `.`, up to 128 characters. Two
//! tools of one name in different modules compile; linking them is refused at run time,
//! naming both.

use cy_tools::binding::RegistryError;
use cy_tools::definition::Definition;
use cy_tools::{ToolRegistry, tool};

/// Create an issue.
#[tool(name = "github.create_issue")]
async fn create_issue() -> String {
    String::new()
}

/// Search the web.
#[tool(name = "web-search.v2")]
async fn web_search() -> String {
    String::new()
}

mod first {
    use cy_tools::tool;

    /// Read a file.
    #[tool(name = "fs.read")]
    pub async fn read() -> String {
        String::new()
    }
}

mod second {
    use cy_tools::tool;

    /// Read a file, again.
    #[tool(name = "fs.read")]
    pub async fn read_again() -> String {
        String::new()
    }
}

/// Not registered, so not checked for its name: a test's own variant, say.
#[tool(name = "github.create_issue", register = false)]
async fn create_issue_variant() -> String {
    String::new()
}

fn main() {
    assert_eq!(CREATE_ISSUE.name(), "github.create_issue");
    assert_eq!(WEB_SEARCH.name(), "web-search.v2");
    assert_eq!(CREATE_ISSUE_VARIANT.name(), "github.create_issue");
    let _ = (&first::READ, &second::READ_AGAIN);
    let Err(RegistryError::Duplicate { name, first, second }) = ToolRegistry::linked() else {
        panic!("two tools named `fs.read` were linked without an error");
    };
    assert_eq!(name, "fs.read");
    // Each place starts with the crate's name, which trybuild chooses.
    let mut places = [first, second];
    places.sort();
    assert!(places[0].ends_with("::first::read"), "{places:?}");
    assert!(places[1].ends_with("::second::read_again"), "{places:?}");
}
