//! The bodies of the 16 tools: what each answers for its parameters.

use super::params::*;

/// What `read_file` answers.
pub fn read_file(p: ReadFile) -> String {
    format!(
        "{}: lines {}..+{}",
        p.path,
        p.offset.unwrap_or(1),
        p.limit.map_or_else(|| "all".to_string(), |l| l.to_string())
    )
}

/// What `write_file` answers.
pub fn write_file(p: WriteFile) -> String {
    format!(
        "wrote {} bytes to {}{}",
        p.content.len(),
        p.path,
        if p.create_dirs == Some(true) {
            " (folders created)"
        } else {
            ""
        }
    )
}

/// What `list_dir` answers.
pub fn list_dir(p: ListDir) -> String {
    format!(
        "{} to depth {}, hidden {}",
        p.path,
        p.depth.unwrap_or(1),
        p.include_hidden.unwrap_or(false)
    )
}

/// What `search_text` answers.
pub fn search_text(p: SearchText) -> String {
    format!(
        "/{}/ ({:?}) in {} paths, at most {}",
        p.pattern,
        p.case,
        p.paths.len(),
        p.max_results.unwrap_or(100)
    )
}

/// What `replace_text` answers.
pub fn replace_text(p: ReplaceText) -> String {
    format!(
        "{}: {:?} -> {:?} x{}",
        p.path,
        p.old,
        p.new,
        p.count.unwrap_or(u32::MAX)
    )
}

/// What `run_command` answers.
pub fn run_command(p: RunCommand) -> String {
    let env: Vec<String> = p
        .env
        .iter()
        .map(|v| format!("{}={}", v.name, v.value))
        .collect();
    format!(
        "{} {} [{}] within {} ms",
        p.command,
        p.args.join(" "),
        env.join(" "),
        p.timeout_ms.unwrap_or(30_000)
    )
}

/// What `http_request` answers.
pub fn http_request(p: HttpRequest) -> String {
    format!(
        "{:?} {} with {} headers, {} body bytes",
        p.method,
        p.url,
        p.headers.len(),
        p.body.map_or(0, |b| b.len())
    )
}

/// What `create_issue` answers.
pub fn create_issue(p: CreateIssue) -> String {
    format!(
        "created {:?} issue {:?} [{}] for {}",
        p.priority,
        p.title,
        p.labels.join(","),
        p.assignee.as_deref().unwrap_or("nobody")
    )
}

/// What `update_issue` answers.
pub fn update_issue(p: UpdateIssue) -> String {
    format!(
        "#{} now {:?}, +{} labels, comment: {}",
        p.id,
        p.state,
        p.add_labels.len(),
        p.comment.is_some()
    )
}

/// What `schedule_event` answers.
pub fn schedule_event(p: ScheduleEvent) -> String {
    let required = p
        .attendees
        .iter()
        .filter(|a| a.optional != Some(true))
        .count();
    format!(
        "{} on {} at {} {} for {} min, {} invited ({} required), {:?}",
        p.title,
        p.start.date,
        p.start.time,
        p.start.zone.as_deref().unwrap_or("UTC"),
        p.duration_minutes,
        p.attendees.len(),
        required,
        p.recurrence
    )
}

/// What `send_message` answers.
pub fn send_message(p: SendMessage) -> String {
    format!(
        "#{}{}: {} chars{}",
        p.channel,
        p.thread
            .map(|t| format!(" (thread {t})"))
            .unwrap_or_default(),
        p.text.len(),
        if p.urgent == Some(true) { " @all" } else { "" }
    )
}

/// What `query_database` answers.
pub fn query_database(p: QueryDatabase) -> String {
    let (number, size) = p.page.map_or((1, 50), |pg| (pg.number, pg.size));
    format!(
        "{} with {} params, page {number} of {size}",
        p.sql,
        p.params.len()
    )
}

/// What `convert_units` answers.
pub fn convert_units(p: ConvertUnits) -> String {
    format!(
        "{} {:?} = {} {:?}",
        p.value,
        p.from,
        p.value * p.from.metres() / p.to.metres(),
        p.to
    )
}

/// What `geocode` answers.
pub fn geocode(p: Geocode) -> String {
    let a = p.address;
    format!(
        "{}, {} {}, {} ({})",
        a.street,
        a.postal_code.unwrap_or_default(),
        a.city,
        a.country,
        p.language.as_deref().unwrap_or("en")
    )
}

/// What `resize_image` answers.
pub fn resize_image(p: ResizeImage) -> String {
    format!(
        "{} -> {}x{} {:?} q{}",
        p.path,
        p.width,
        p.height,
        p.format,
        p.quality.unwrap_or(85)
    )
}

/// What `summarize_stats` answers.
pub fn summarize_stats(p: SummarizeStats) -> String {
    let n = p.values.len().max(1) as f64;
    let mean = p.values.iter().sum::<f64>() / n;
    let scale = 10f64.powi(i32::from(p.round_to.unwrap_or(2)));
    format!(
        "n={} mean={} percentiles={}",
        p.values.len(),
        (mean * scale).round() / scale,
        p.percentiles.len()
    )
}
