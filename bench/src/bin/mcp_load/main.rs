//! The one client of `scripts/bench-http`, the same for every server it measures.
//!
//! * `mcp_load http URL CLIENTS SECONDS WARMUP [TOKEN]`: `CLIENTS` concurrent clients, each on
//!   its own keep-alive HTTP/1.1 connection, call `read_file` on `notes.txt` back to back as
//!   2026-07-28 requests (stateless: per-request metadata, no `initialize`) for `WARMUP`
//!   seconds unmeasured, then `SECONDS` measured.
//! * `mcp_load stdio DIALECT LANES SECONDS -- COMMAND...`: starts the server, connects with the
//!   `initialize` handshake, and runs `LANES` lanes at once, each a loop of write, read, edit,
//!   list and search on a file of its own, for `SECONDS`. `DIALECT` is `cy` (cy-tools' tool
//!   names and arguments) or `reference` (`@modelcontextprotocol/server-filesystem`'s).
//! * `mcp_load attacks DIALECT BASE CORPUS -- COMMAND...`: lays out a workspace `BASE/ws` with
//!   symlinks out of it and secrets beside it, starts the server on it (`{ws}` in `COMMAND` is
//!   its path), and sends every path of the `CORPUS` (a JSON array) to every file tool.
//!
//! Each prints one JSON object on stdout.

mod attacks;
mod http;
mod stats;
mod stdio;

use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: mcp_load http URL CLIENTS SECONDS WARMUP [TOKEN]\n       mcp_load stdio cy|reference LANES SECONDS -- COMMAND...\n       mcp_load attacks cy|reference BASE CORPUS -- COMMAND..."
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (own, command) = match args.iter().position(|a| a == "--") {
        Some(at) => (&args[..at], args[at + 1..].to_vec()),
        None => (&args[..], Vec::new()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let number = |text: &String| text.parse::<u64>().ok();
    let result = match own {
        [mode, url, clients, seconds, warmup, rest @ ..] if mode == "http" && rest.len() <= 1 => {
            let (Some(clients), Some(seconds), Some(warmup)) =
                (number(clients), number(seconds), number(warmup))
            else {
                return usage();
            };
            runtime.block_on(http::run(http::Load {
                url: url.clone(),
                clients: clients as usize,
                seconds,
                warmup,
                token: rest.first().cloned(),
            }))
        }
        [mode, dialect, lanes, seconds] if mode == "stdio" && !command.is_empty() => {
            let (Some(dialect), Some(lanes), Some(seconds)) = (
                stdio::Dialect::parse(dialect),
                number(lanes),
                number(seconds),
            ) else {
                return usage();
            };
            runtime.block_on(stdio::run(dialect, lanes as usize, seconds, &command))
        }
        [mode, dialect, base, corpus] if mode == "attacks" && !command.is_empty() => {
            let Some(dialect) = stdio::Dialect::parse(dialect) else {
                return usage();
            };
            runtime.block_on(attacks::run(
                dialect,
                base.as_ref(),
                corpus.as_ref(),
                &command,
            ))
        }
        _ => return usage(),
    };
    match result {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
