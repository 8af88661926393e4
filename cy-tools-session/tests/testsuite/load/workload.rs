//! One session's script: the call at each step, the exact answer it must get, and a model of
//! the files the session's workspace must hold. Everything a session writes carries its own id,
//! so any text of another session's shows up as a foreign id (see [`foreign_ids`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use cy_tools::ToolResult;
use serde_json::{Value, json};

/// The word every written file starts with, followed by the writer's id and call number.
pub const MARK: &str = "LOADMARK-";

/// How session ids start; [`foreign_ids`] looks for this.
pub const ID_PREFIX: &str = "zq-";

/// The session id of session `n`.
pub fn session_id(n: usize) -> String {
    format!("{ID_PREFIX}{n:05}")
}

/// Every session id in `text` other than `own`.
pub fn foreign_ids(text: &str, own: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(ID_PREFIX) {
        let tail = &rest[at + ID_PREFIX.len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits >= 5 {
            let id = &rest[at..at + ID_PREFIX.len() + digits];
            if id != own {
                found.push(id.to_string());
            }
        }
        rest = &rest[at + ID_PREFIX.len()..];
    }
    found
}

/// What a call exercises, for the figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    WriteFile,
    ReadFile,
    EditFile,
    ListDirectory,
    SearchText,
    FindFiles,
    /// `execute_code` running plain Python.
    ExecuteCode,
    /// `execute_code` through code mode: Python calling the session's tools with `cy_sdk`.
    CodeMode,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::WriteFile,
        Kind::ReadFile,
        Kind::EditFile,
        Kind::ListDirectory,
        Kind::SearchText,
        Kind::FindFiles,
        Kind::ExecuteCode,
        Kind::CodeMode,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Kind::WriteFile => "write_file",
            Kind::ReadFile => "read_file",
            Kind::EditFile => "edit_file",
            Kind::ListDirectory => "list_directory",
            Kind::SearchText => "search_text",
            Kind::FindFiles => "find_files",
            Kind::ExecuteCode => "execute_code",
            Kind::CodeMode => "code_mode",
        }
    }

    /// Whether the call starts a Python process.
    pub fn runs_python(self) -> bool {
        matches!(self, Kind::ExecuteCode | Kind::CodeMode)
    }
}

/// One call of the script.
#[derive(Clone, Debug)]
pub struct Call {
    pub kind: Kind,
    /// The tool called (and recorded); `execute_code` for both Python kinds.
    pub tool: &'static str,
    pub arguments: Value,
    /// The tools the code calls back through `cy_sdk`, in order (code mode only).
    pub nested: Vec<&'static str>,
}

/// A session's script and the model of its workspace: relative path to exact contents.
pub struct Script {
    id: String,
    files: BTreeMap<String, String>,
    last_note: String,
    last_py: String,
    last_cm: String,
}

impl Script {
    pub fn new(id: &str) -> Self {
        Script {
            id: id.to_string(),
            files: BTreeMap::new(),
            last_note: String::new(),
            last_py: String::new(),
            last_cm: String::new(),
        }
    }

    /// The files the workspace must hold once every call is answered.
    pub fn files(&self) -> &BTreeMap<String, String> {
        &self.files
    }

    /// The call at step `k`. A cycle of ten steps; a step reads only what an earlier step of the
    /// same cycle wrote, so any number of calls makes a valid script.
    pub fn call(&self, k: usize) -> Call {
        let id = &self.id;
        let (kind, arguments, nested) = match k % 10 {
            0 => (
                Kind::WriteFile,
                json!({"path": format!("notes/{id}-{k}.txt"), "content": format!("{MARK}{id}-{k}\nline two of {id}\n")}),
                vec![],
            ),
            1 => (Kind::ReadFile, json!({"path": self.last_note}), vec![]),
            2 => (
                Kind::EditFile,
                json!({"path": self.last_note, "old_string": format!("line two of {id}"), "new_string": format!("edited by {id} at call {k}")}),
                vec![],
            ),
            3 => (
                Kind::ListDirectory,
                json!({"path": ".", "depth": 3}),
                vec![],
            ),
            4 => (
                Kind::ExecuteCode,
                json!({"code": plain_code(id, k), "filename": format!("run-{k}.py")}),
                vec![],
            ),
            5 => (
                Kind::SearchText,
                json!({"pattern": MARK, "path": ".", "glob": "*.txt"}),
                vec![],
            ),
            6 => (
                Kind::CodeMode,
                json!({"code": sdk_write_code(id, k, &self.last_note), "filename": format!("cm-{k}.py")}),
                vec!["read_file", "write_file", "search_text", "list_directory"],
            ),
            7 => (
                Kind::FindFiles,
                json!({"pattern": "*.txt", "path": "."}),
                vec![],
            ),
            8 => (Kind::ReadFile, json!({"path": self.last_py}), vec![]),
            _ => (
                Kind::CodeMode,
                json!({"code": sdk_edit_code(id, k, &self.last_cm), "filename": format!("cm-{k}.py")}),
                vec!["edit_file", "read_file", "find_files"],
            ),
        };
        let tool = match kind {
            Kind::ExecuteCode | Kind::CodeMode => "execute_code",
            other => other.label(),
        };
        Call {
            kind,
            tool,
            arguments,
            nested,
        }
    }

    /// Checks the answer to `call` (step `k`) against the model, then applies the call to it.
    ///
    /// # Errors
    /// What differs, with the answer.
    pub fn check(&mut self, k: usize, call: &Call, result: &ToolResult) -> Result<(), String> {
        let text = crate::support::outcome::text(result);
        let explain = |what: String| format!("{what}; the answer was: {}", clip(&text));
        let fail = |what: String| Err(explain(what));
        // What later steps work on, whatever this call's outcome.
        let id = self.id.clone();
        match k % 10 {
            0 => self.last_note = format!("notes/{id}-{k}.txt"),
            4 => self.last_py = format!("py/{id}-{k}.txt"),
            6 => self.last_cm = format!("cm/{id}-{k}.txt"),
            _ => {}
        }
        if result.is_error {
            return Err(format!("an error result: {}", clip(&text)));
        }
        let foreign = foreign_ids(&text, &self.id);
        if !foreign.is_empty() {
            return fail(format!("LEAK: the answer names other sessions {foreign:?}"));
        }
        let args = &call.arguments;
        let arg = |name: &str| args[name].as_str().unwrap_or_default().to_string();
        match k % 10 {
            0 => {
                let path = arg("path");
                self.files.insert(path.clone(), arg("content"));
                if !text.contains(&path) {
                    return fail(format!("write_file does not name `{path}`"));
                }
            }
            1 | 8 => {
                let expected = self.numbered(&arg("path"));
                if text != expected {
                    return fail(format!("read_file: expected {expected:?}"));
                }
            }
            2 => {
                let path = arg("path");
                let Some(content) = self.files.get_mut(&path) else {
                    return fail(format!("edit_file of `{path}`, which the model lacks"));
                };
                *content = content.replacen(&arg("old_string"), &arg("new_string"), 1);
            }
            3 => self.check_listing(&text).map_err(explain)?,
            4 => {
                let py = format!("py/{id}-{k}.txt");
                self.files.insert(arg("filename"), arg("code"));
                self.files.insert(py, format!("{MARK}{id}-{k}\n"));
                let expected = serde_json::to_string(&self.marks()).unwrap_or_default();
                if text != expected {
                    return fail(format!("execute_code: expected the marks {expected}"));
                }
            }
            5 => self.check_search(&text).map_err(explain)?,
            6 => {
                let out: Value = serde_json::from_str(&text)
                    .map_err(|err| explain(format!("code mode printed no JSON ({err})")))?;
                let read = self.numbered(&self.last_note.clone());
                self.files.insert(arg("filename"), arg("code"));
                let cm = format!("cm/{id}-{k}.txt");
                self.files
                    .insert(cm.clone(), format!("{MARK}{id}-{k}\nfrom code mode\n"));
                if out["read"] != json!(read) {
                    return fail(format!("cy_sdk read_file: expected {read:?}"));
                }
                if !out["wrote"].as_str().unwrap_or_default().contains(&cm) {
                    return fail(format!("cy_sdk write_file does not name `{cm}`"));
                }
                self.check_search(out["hits"].as_str().unwrap_or_default())
                    .map_err(explain)?;
                self.check_listing(out["listing"].as_str().unwrap_or_default())
                    .map_err(explain)?;
            }
            7 => self.check_found(&text).map_err(explain)?,
            _ => {
                self.files.insert(arg("filename"), arg("code"));
                let cm = self.last_cm.clone();
                let Some(content) = self.files.get_mut(&cm) else {
                    return fail(format!("cy_sdk edit_file of `{cm}`, which the model lacks"));
                };
                *content = content.replacen(
                    "from code mode",
                    &format!("edited from code mode by {id} at call {k}"),
                    1,
                );
                let out: Value = serde_json::from_str(&text)
                    .map_err(|err| explain(format!("code mode printed no JSON ({err})")))?;
                if !out["edited"].is_string() {
                    return fail("cy_sdk edit_file answered no text".into());
                }
                let read = self.numbered(&cm);
                if out["read"] != json!(read) {
                    return fail(format!("cy_sdk read_file: expected {read:?}"));
                }
                self.check_found(out["found"].as_str().unwrap_or_default())
                    .map_err(explain)?;
            }
        }
        Ok(())
    }

    /// Takes the workspace as it is on disk for the model, after a call whose effects are not
    /// known (one that failed), so that later calls are checked against what is there.
    pub fn resync(&mut self, files: BTreeMap<String, String>) {
        self.files = files;
    }

    /// `read_file`'s answer for the whole of `path`: each line after its number.
    fn numbered(&self, path: &str) -> String {
        let content = self.files.get(path).map_or("", String::as_str);
        content
            .lines()
            .enumerate()
            .map(|(n, line)| format!("{:>6}\t{line}", n + 1))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Every marked word in the `.txt` files, sorted.
    fn marks(&self) -> Vec<&str> {
        let mut marks: Vec<&str> = self
            .files
            .iter()
            .filter(|(path, _)| path.ends_with(".txt"))
            .flat_map(|(_, content)| content.split_whitespace())
            .filter(|word| word.starts_with(MARK))
            .collect();
        marks.sort_unstable();
        marks
    }

    fn txt_files(&self) -> BTreeSet<String> {
        self.files
            .keys()
            .filter(|p| p.ends_with(".txt"))
            .cloned()
            .collect()
    }

    /// `search_text` for the mark over `*.txt`: exactly the model's marked lines.
    fn check_search(&self, text: &str) -> Result<(), String> {
        let expected: BTreeSet<String> = self
            .files
            .iter()
            .filter(|(path, _)| path.ends_with(".txt"))
            .flat_map(|(path, content)| {
                content
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| line.contains(MARK))
                    .map(move |(n, line)| format!("{path}:{}: {line}", n + 1))
            })
            .collect();
        let got: BTreeSet<String> = text.lines().map(str::to_string).collect();
        same_sets("search_text hits", &got, &expected)
    }

    /// `list_directory` of `.` at depth 3: exactly the model's files and their folders.
    fn check_listing(&self, text: &str) -> Result<(), String> {
        let mut files = BTreeSet::new();
        let mut dirs = BTreeSet::new();
        for line in text.lines() {
            if let Some(dir) = line.strip_suffix('/') {
                dirs.insert(dir.to_string());
            } else if let Some((path, _size)) = line.split_once("  (") {
                files.insert(path.to_string());
            } else {
                return Err(format!("list_directory: unexpected line {line:?}"));
            }
        }
        let expected_files: BTreeSet<String> = self.files.keys().cloned().collect();
        let expected_dirs: BTreeSet<String> = self
            .files
            .keys()
            .filter_map(|p| p.rsplit_once('/').map(|(dir, _)| dir.to_string()))
            .collect();
        same_sets("listed files", &files, &expected_files)?;
        same_sets("listed folders", &dirs, &expected_dirs)
    }

    /// `find_files` of `*.txt`: exactly the model's `.txt` files.
    fn check_found(&self, text: &str) -> Result<(), String> {
        let got: BTreeSet<String> = text.lines().map(str::to_string).collect();
        same_sets("found files", &got, &self.txt_files())
    }
}

fn same_sets(
    what: &str,
    got: &BTreeSet<String>,
    expected: &BTreeSet<String>,
) -> Result<(), String> {
    if got == expected {
        return Ok(());
    }
    let extra: Vec<&String> = got.difference(expected).collect();
    let missing: Vec<&String> = expected.difference(got).collect();
    Err(format!("{what}: extra {extra:?}, missing {missing:?}"))
}

/// At most 600 characters of `text`, for messages.
pub fn clip(text: &str) -> String {
    if text.chars().count() <= 600 {
        return text.to_string();
    }
    let head: String = text.chars().take(600).collect();
    format!("{head}…")
}

/// Plain Python: writes its own marked file, then prints every mark in the workspace's `.txt`
/// files, sorted, as JSON.
fn plain_code(id: &str, k: usize) -> String {
    format!(
        r#"import json, os
os.makedirs("py", exist_ok=True)
with open("py/{id}-{k}.txt", "w") as f:
    f.write("{MARK}{id}-{k}\n")
marks = []
for root, _, files in os.walk("."):
    for name in files:
        if name.endswith(".txt"):
            with open(os.path.join(root, name)) as f:
                marks += [w for w in f.read().split() if w.startswith("{MARK}")]
print(json.dumps(sorted(marks), separators=(",", ":")))
"#
    )
}

/// Code mode: four calls back into the session's tools.
fn sdk_write_code(id: &str, k: usize, note: &str) -> String {
    format!(
        r#"import json, cy_sdk
read = cy_sdk.call("read_file", path="{note}")
wrote = cy_sdk.call("write_file", path="cm/{id}-{k}.txt", content="{MARK}{id}-{k}\nfrom code mode\n")
hits = cy_sdk.call("search_text", pattern="{MARK}", path=".", glob="*.txt")
listing = cy_sdk.call("list_directory", path=".", depth=3)
print(json.dumps({{"read": read, "wrote": wrote, "hits": hits, "listing": listing}}))
"#
    )
}

/// Code mode: three calls back into the session's tools.
fn sdk_edit_code(id: &str, k: usize, cm: &str) -> String {
    format!(
        r#"import json, cy_sdk
edited = cy_sdk.call("edit_file", path="{cm}", old_string="from code mode", new_string="edited from code mode by {id} at call {k}")
read = cy_sdk.call("read_file", path="{cm}")
found = cy_sdk.call("find_files", pattern="*.txt", path=".")
print(json.dumps({{"edited": edited, "read": read, "found": found}}))
"#
    )
}

/// Every file under `root`, as relative path (with `/`) to contents.
pub fn tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).unwrap_or(&path);
                let text = std::fs::read(&path)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_else(|err| format!("<unreadable: {err}>"));
                out.insert(relative.to_string_lossy().into_owned(), text);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_ids_finds_only_other_sessions() {
        let text = "zq-00001 zq-00002/x zq-0003 zq-000010";
        assert_eq!(foreign_ids(text, "zq-00001"), ["zq-00002", "zq-000010"]);
        assert!(foreign_ids("zq-00007 and zq-00007", "zq-00007").is_empty());
    }
}
