//! One reviewed snapshot per `#[tool]` example: what a provider is shown (name, description,
//! annotations, declared capabilities, timeout and the canonical parameter schema).

use cy_tools::definition::Definition;
use cy_tools_tests::{files, misc, search};
use serde_json::{Value, json};

fn shown(tool: &dyn Definition) -> Value {
    json!({
        "name": tool.name(),
        "description": tool.description(),
        "annotations": tool.annotations(),
        "capabilities": tool.capabilities().to_string(),
        "timeout_ms": tool.timeout().map(|t| t.as_millis() as u64),
        "parameters": tool.schema().expect("schema").value(),
    })
}

#[test]
fn read_lines() {
    insta::assert_json_snapshot!("read_lines", shown(&files::READ_LINES));
}

#[test]
fn save_text() {
    insta::assert_json_snapshot!("save_text", shown(&files::SAVE_TEXT));
}

#[test]
fn find_lines() {
    insta::assert_json_snapshot!("find_lines", shown(&search::FIND_LINES));
}

#[test]
fn ping() {
    insta::assert_json_snapshot!("ping", shown(&misc::PING));
}

#[test]
fn add_numbers() {
    insta::assert_json_snapshot!("add_numbers", shown(&misc::ADD));
}

#[test]
fn notify() {
    insta::assert_json_snapshot!("notify", shown(&misc::NOTIFY));
}

#[test]
fn wait_for_cancel() {
    insta::assert_json_snapshot!("wait_for_cancel", shown(&misc::WAIT_FOR_CANCEL));
}

#[test]
fn echo() {
    insta::assert_json_snapshot!("echo", shown(&misc::ECHO));
}

#[test]
fn count_chars() {
    insta::assert_json_snapshot!("count_chars", shown(&misc::COUNT_CHARS));
}

/// The shapes `#[tool]` took later: inline constraints, a rename and a leading `_`, a method of
/// a `#[tools]` impl, a plain `fn` returning a list as structured JSON. Their snapshot holds the
/// output schema too.
mod shapes {
    use std::sync::Mutex;

    use cy_tools::prelude::*;

    /// How to sort.
    #[derive(Default, serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Order {
        /// Newest first.
        #[default]
        Newest,
        /// Oldest first.
        Oldest,
    }

    /// Search the notes.
    #[tool(register = false, read_only)]
    pub async fn search_notes(
        /// What to look for.
        #[schemars(length(min = 1, max = 80))]
        query: String,
        /// How many, 1 to 50.
        #[schemars(range(min = 1, max = 50))]
        #[arg(default = 10)]
        limit: u32,
        /// A tag: lowercase letters.
        #[schemars(regex(pattern = r"^[a-z]+$"))]
        #[serde(rename = "tag")]
        tag_name: Option<String>,
        /// The order.
        #[serde(default)]
        _order: Order,
    ) -> String {
        format!("{query} {limit} {tag_name:?}")
    }

    /// The application's notes.
    pub struct Notes(pub Mutex<Vec<String>>);

    #[tools]
    impl Notes {
        /// Add a note; answers how many there are.
        #[tool(register = false, idempotent)]
        pub fn add_note(
            &self,
            /// The note.
            #[schemars(length(max = 200))]
            text: String,
        ) -> usize {
            let mut notes = self.0.lock().unwrap();
            notes.push(text);
            notes.len()
        }
    }

    /// The length of each word.
    #[tool(register = false)]
    pub fn lengths(
        /** The text. */
        text: String,
    ) -> Json<Vec<usize>> {
        Json(text.split_whitespace().map(str::len).collect())
    }
}

fn shown_with_output(tool: &dyn Definition) -> Value {
    let mut value = shown(tool);
    value["output_schema"] = json!(tool.output_schema().map(|o| o.value()));
    value["states"] = json!(tool.states().len());
    value
}

#[test]
fn inline_constraints_renames_and_underscores() {
    insta::assert_json_snapshot!("search_notes", shown_with_output(&shapes::SEARCH_NOTES));
}

#[test]
fn a_method_of_a_tools_impl() {
    insta::assert_json_snapshot!("add_note", shown_with_output(&shapes::NOTES_ADD_NOTE));
}

#[test]
fn a_list_as_structured_json() {
    insta::assert_json_snapshot!("lengths", shown_with_output(&shapes::LENGTHS));
}
