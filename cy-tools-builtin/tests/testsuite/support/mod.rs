//! What several topics' tests share. A helper only one topic uses lives with that topic.

pub mod alone;
pub mod backend;
pub mod code_session;
pub mod loopback_server;
pub mod postgres;
pub mod process;
pub mod raw_http;
pub mod reaper;
pub mod workspace;
