//! Code mode: code run by `execute_code` calls the session's tools back through `cy_sdk`. The
//! behaviour and the limits both backends share (`cases`, `limits`, run on each), what only one
//! backend shows, and attacks by a hostile model or client.

mod approval;
mod attacks;
mod cases;
mod harness;
mod limits;
mod local;
mod package_swap;
mod remote;
mod server_process;
mod typed;
