//! The built-in tools. Each registers itself at link time; the statics (`READ_FILE`, ...) are
//! the context-free definitions. `delegate`, `workflow`, `signal` and `send_message` need a
//! session's factory, coordinator or chat, and come with the `sessions` feature.

#[cfg(feature = "sessions")]
pub mod delegate;
pub mod edit_file;
pub mod execute_code;
pub mod find_files;
pub mod list_directory;
pub mod process;
mod progress;
pub mod read_file;
pub mod search_text;
#[cfg(feature = "sessions")]
pub mod send_message;
#[cfg(feature = "sessions")]
pub mod signal;
pub mod terminal;
mod text;
#[cfg(feature = "sessions")]
pub mod workflow;
pub mod write_file;
