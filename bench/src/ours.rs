//! The 16 tools written with cy-tools' `#[tool]`, each taking its shared parameter struct
//! whole (`#[args]`), so the schema and the deserialization are the very ones rmcp gets.
//!
//! `register = false`: the benchmark binds them from a registry it fills itself
//! ([`registry`]), so the scaling benchmark's own registrations never mix with these.

use cy_tools::{ToolRegistry, tool};

use crate::tools::{self, *};

/// Read a UTF-8 text file from the workspace, a range of lines at a time.
#[tool(register = false, read_only)]
pub async fn read_file(#[args] p: ReadFile) -> String {
    tools::read_file(p)
}

/// Write a whole file in the workspace, replacing what was there.
#[tool(register = false)]
pub async fn write_file(#[args] p: WriteFile) -> String {
    tools::write_file(p)
}

/// List the entries of a folder in the workspace.
#[tool(register = false, read_only)]
pub async fn list_dir(#[args] p: ListDir) -> String {
    tools::list_dir(p)
}

/// Search files for lines matching a regular expression.
#[tool(register = false, read_only)]
pub async fn search_text(#[args] p: SearchText) -> String {
    tools::search_text(p)
}

/// Replace exact text in a file.
#[tool(register = false)]
pub async fn replace_text(#[args] p: ReplaceText) -> String {
    tools::replace_text(p)
}

/// Run a program in the workspace and return its output.
#[tool(register = false)]
pub async fn run_command(#[args] p: RunCommand) -> String {
    tools::run_command(p)
}

/// Send an HTTP request and return the response.
#[tool(register = false)]
pub async fn http_request(#[args] p: HttpRequest) -> String {
    tools::http_request(p)
}

/// Open an issue in the project's tracker.
#[tool(register = false)]
pub async fn create_issue(#[args] p: CreateIssue) -> String {
    tools::create_issue(p)
}

/// Change the state or labels of an issue, or comment on it.
#[tool(register = false)]
pub async fn update_issue(#[args] p: UpdateIssue) -> String {
    tools::update_issue(p)
}

/// Put an event in the team calendar and invite people.
#[tool(register = false)]
pub async fn schedule_event(#[args] p: ScheduleEvent) -> String {
    tools::schedule_event(p)
}

/// Post a message in a team chat channel.
#[tool(register = false)]
pub async fn send_message(#[args] p: SendMessage) -> String {
    tools::send_message(p)
}

/// Run a read-only SQL query and return one page of rows.
#[tool(register = false, read_only)]
pub async fn query_database(#[args] p: QueryDatabase) -> String {
    tools::query_database(p)
}

/// Convert a length from one unit to another.
#[tool(register = false)]
pub async fn convert_units(#[args] p: ConvertUnits) -> String {
    tools::convert_units(p)
}

/// Find the coordinates of a postal address.
#[tool(register = false)]
pub async fn geocode(#[args] p: Geocode) -> String {
    tools::geocode(p)
}

/// Resize an image file and convert its format.
#[tool(register = false)]
pub async fn resize_image(#[args] p: ResizeImage) -> String {
    tools::resize_image(p)
}

/// Summarize a sample of numbers: count, mean, percentiles.
#[tool(register = false)]
pub async fn summarize_stats(#[args] p: SummarizeStats) -> String {
    tools::summarize_stats(p)
}

/// The 16 definitions, in the order a session lists them.
pub const DEFINITIONS: [&'static dyn cy_tools::definition::Definition; 16] = [
    &READ_FILE,
    &WRITE_FILE,
    &LIST_DIR,
    &SEARCH_TEXT,
    &REPLACE_TEXT,
    &RUN_COMMAND,
    &HTTP_REQUEST,
    &CREATE_ISSUE,
    &UPDATE_ISSUE,
    &SCHEDULE_EVENT,
    &SEND_MESSAGE,
    &QUERY_DATABASE,
    &CONVERT_UNITS,
    &GEOCODE,
    &RESIZE_IMAGE,
    &SUMMARIZE_STATS,
];

/// A registry holding the 16 tools under their own names.
///
/// # Panics
/// Never: the names are valid and distinct.
pub fn registry() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    for definition in DEFINITIONS {
        registry
            .register(definition.name(), definition)
            .expect("the 16 names are valid and distinct");
    }
    registry
}
