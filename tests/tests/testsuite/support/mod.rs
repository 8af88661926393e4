//! What several topics' tests share. A helper only one topic uses lives with that topic.

pub mod app;
pub mod conformance;
pub mod http_mcp;
pub mod process;
pub mod reaper;
