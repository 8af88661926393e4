//! The `execute_code` tool: the behaviour both executors share (`cases`, run on each), and what
//! only the local executor has (a configurable run command). What only the remote one meets is
//! `cy-tools-remote`'s; the default runner (`uv`) in sessions is `cy-tools-session`'s.

mod cases;
mod local;
mod scripts;
