//! The built-in tools that work in a session's sandbox. Each registers itself at link time; the
//! statics (`READ_FILE`, ...) are the context-free definitions. The tools that need a session's
//! factory, coordinator or chat (`delegate`, `workflow`, `signal`, `send_message`) are in
//! `cy-tools-session`.

pub mod edit_file;
pub mod execute_code;
pub mod find_files;
pub mod list_directory;
mod outcome;
pub mod process;
mod progress;
pub mod read_file;
pub mod search_text;
pub mod terminal;
mod text;
pub mod write_file;
