//! The built-in tools. Each registers itself at link time; the statics (`READ_FILE`, ...) are
//! the context-free definitions.

pub mod delegate;
pub mod edit_file;
pub mod execute_code;
pub mod find_files;
pub mod list_directory;
pub mod process;
pub mod read_file;
pub mod search_text;
pub mod send_message;
pub mod signal;
pub mod terminal;
mod text;
pub mod workflow;
pub mod write_file;
