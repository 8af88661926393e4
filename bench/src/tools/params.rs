//! The parameter types of the 16 tools: what the model sends, as serde and schemars see it.

use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `read_file`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFile {
    /// Path relative to the workspace root.
    pub path: String,
    /// 1-based line to start from.
    pub offset: Option<u64>,
    /// Maximum number of lines to return.
    pub limit: Option<u64>,
}

/// Arguments of `write_file`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFile {
    /// Path relative to the workspace root.
    pub path: String,
    /// The whole new content of the file.
    pub content: String,
    /// Create missing parent folders.
    pub create_dirs: Option<bool>,
}

/// Arguments of `list_dir`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDir {
    /// Folder relative to the workspace root.
    pub path: String,
    /// How many levels to descend (1: the folder's own entries).
    pub depth: Option<u32>,
    /// Include entries whose name starts with a dot.
    pub include_hidden: Option<bool>,
}

/// How a search treats letter case.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "snake_case")]
pub enum CaseMode {
    /// Match case exactly.
    Sensitive,
    /// Ignore case.
    Insensitive,
    /// Ignore case unless the pattern has an upper-case letter.
    Smart,
}

/// Arguments of `search_text`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchText {
    /// Regular expression to look for.
    pub pattern: String,
    /// Files or folders to search, relative to the workspace root.
    pub paths: Vec<String>,
    /// How letter case is treated.
    pub case: CaseMode,
    /// Stop after this many matching lines.
    pub max_results: Option<u32>,
}

/// Arguments of `replace_text`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceText {
    /// File relative to the workspace root.
    pub path: String,
    /// Exact text to replace.
    pub old: String,
    /// Replacement text.
    pub new: String,
    /// Replace at most this many occurrences (all when absent).
    pub count: Option<u32>,
}

/// One environment variable.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvVar {
    /// Variable name.
    pub name: String,
    /// Variable value.
    pub value: String,
}

/// Arguments of `run_command`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCommand {
    /// Program to run.
    pub command: String,
    /// Its arguments, one per element.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: Vec<EnvVar>,
    /// Kill the command after this many milliseconds.
    pub timeout_ms: Option<u64>,
}

/// An HTTP method.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpMethod {
    /// Read a resource.
    Get,
    /// Create or submit.
    Post,
    /// Replace a resource.
    Put,
    /// Remove a resource.
    Delete,
}

/// One HTTP header.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Header name.
    pub name: String,
    /// Header value.
    pub value: String,
}

/// Arguments of `http_request`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpRequest {
    /// The method.
    pub method: HttpMethod,
    /// Absolute URL.
    pub url: String,
    /// Request headers.
    #[serde(default)]
    pub headers: Vec<Header>,
    /// Request body.
    pub body: Option<String>,
}

/// How urgent an issue is.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Whenever there is time.
    Low,
    /// The usual.
    Normal,
    /// Before other work.
    High,
    /// Drop everything.
    Critical,
}

/// Arguments of `create_issue`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateIssue {
    /// One-line summary.
    pub title: String,
    /// Full description, Markdown.
    pub body: String,
    /// Labels to attach.
    #[serde(default)]
    pub labels: Vec<String>,
    /// How urgent it is.
    pub priority: Priority,
    /// Login of the person to assign.
    pub assignee: Option<String>,
}

/// The state of an issue.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "snake_case")]
pub enum IssueState {
    /// Work remains.
    Open,
    /// Done or dropped.
    Closed,
}

/// Arguments of `update_issue`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateIssue {
    /// Issue number.
    pub id: u64,
    /// New state.
    pub state: Option<IssueState>,
    /// Labels to add.
    #[serde(default)]
    pub add_labels: Vec<String>,
    /// Comment to post.
    pub comment: Option<String>,
}

/// A moment in a calendar.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateTime {
    /// Date, `YYYY-MM-DD`.
    pub date: String,
    /// Local time, `HH:MM`.
    pub time: String,
    /// IANA time zone, for example `Europe/Paris`.
    pub zone: Option<String>,
}

/// Someone invited to an event.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attendee {
    /// Email address.
    pub email: String,
    /// Whether attending is optional.
    pub optional: Option<bool>,
}

/// How an event repeats.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Recurrence {
    /// Every day.
    Daily,
    /// Every week on the same day.
    Weekly,
    /// Every month on the same date.
    Monthly,
}

/// Arguments of `schedule_event`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleEvent {
    /// What the event is called.
    pub title: String,
    /// When it starts.
    pub start: DateTime,
    /// How long it lasts, in minutes.
    pub duration_minutes: u32,
    /// Who is invited.
    #[serde(default)]
    pub attendees: Vec<Attendee>,
    /// How it repeats; once when absent.
    pub recurrence: Option<Recurrence>,
}

/// Arguments of `send_message`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessage {
    /// Channel name, without `#`.
    pub channel: String,
    /// Message text.
    pub text: String,
    /// Id of the thread to reply in.
    pub thread: Option<String>,
    /// Notify every member.
    pub urgent: Option<bool>,
}

/// Which page of results to return.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Page {
    /// 1-based page number.
    pub number: u32,
    /// Rows per page.
    pub size: u32,
}

/// Arguments of `query_database`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryDatabase {
    /// A read-only SQL statement with `?` placeholders.
    pub sql: String,
    /// Values for the placeholders, in order.
    #[serde(default)]
    pub params: Vec<String>,
    /// Which page of rows to return.
    pub page: Option<Page>,
}

/// A unit of length.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Millimetres.
    Millimetre,
    /// Metres.
    Metre,
    /// Kilometres.
    Kilometre,
    /// Inches.
    Inch,
    /// Feet.
    Foot,
    /// Miles.
    Mile,
}

impl Unit {
    /// Metres in one of this unit.
    pub fn metres(self) -> f64 {
        match self {
            Unit::Millimetre => 0.001,
            Unit::Metre => 1.0,
            Unit::Kilometre => 1000.0,
            Unit::Inch => 0.0254,
            Unit::Foot => 0.3048,
            Unit::Mile => 1609.344,
        }
    }
}

/// Arguments of `convert_units`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConvertUnits {
    /// The quantity to convert.
    pub value: f64,
    /// Its unit.
    pub from: Unit,
    /// The unit wanted.
    pub to: Unit,
}

/// A postal address.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Address {
    /// Street and number.
    pub street: String,
    /// City or town.
    pub city: String,
    /// Postal code, when the country has them.
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    pub country: String,
}

/// Arguments of `geocode`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Geocode {
    /// The address to locate.
    pub address: Address,
    /// Language of the returned place names (BCP 47).
    pub language: Option<String>,
}

/// An image file format.
#[derive(Deserialize, JsonSchema, Clone, Copy, Debug)]
#[serde(rename_all = "snake_case")]
pub enum ImageFormat {
    /// Portable Network Graphics.
    Png,
    /// JPEG.
    Jpeg,
    /// WebP.
    Webp,
}

/// Arguments of `resize_image`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResizeImage {
    /// Image file relative to the workspace root.
    pub path: String,
    /// Target width in pixels.
    pub width: u32,
    /// Target height in pixels.
    pub height: u32,
    /// Output format.
    pub format: ImageFormat,
    /// Encoder quality, 1 to 100 (lossy formats only).
    pub quality: Option<u8>,
}

/// Arguments of `summarize_stats`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SummarizeStats {
    /// The sample.
    pub values: Vec<f64>,
    /// Percentiles to report, each between 0 and 100.
    #[serde(default)]
    pub percentiles: Vec<f64>,
    /// Decimal places to round to.
    pub round_to: Option<u8>,
}
