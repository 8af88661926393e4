//! The result limit through code mode: code that calls the application's `big_text` for 10 MB
//! gets the first 200,000 bytes and the notice, and the workspace holds the whole result.

use crate::support::app::app;

const CODE: &str = r#"
import cy_sdk
text = cy_sdk.tools.big_text(bytes=10_000_000)
print(len(text.encode()))
print(text.splitlines()[-1])
"#;

#[test]
fn ten_megabytes_through_code_mode_are_cut_and_kept_whole() {
    let workspace = tempfile::tempdir().unwrap();
    let output = app()
        .args([
            "call",
            "execute_code",
            &serde_json::json!({ "code": CODE }).to_string(),
        ])
        .args(["--code-mode", "--root"])
        .arg(workspace.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lines = stdout.lines();
    let length: usize = lines.next().unwrap().parse().unwrap();
    let notice = lines.next().unwrap();
    assert!(
        notice.starts_with("[result cut: 10000000 bytes of text, over this session's limit of 200000 for `big_text`"),
        "{notice}"
    );
    // The first 200,000 bytes, a line break and the notice.
    assert_eq!(length, 200_000 + 1 + notice.len());
    let path = notice
        .split('`')
        .find(|p| p.starts_with(".cy-tools/results/"))
        .unwrap();
    let whole = std::fs::read(workspace.path().join(path)).unwrap();
    assert_eq!(whole.len(), 10_000_000);
    assert!(whole.starts_with(b"line 0\nline 1\n"));
}
