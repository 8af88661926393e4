//! What this process holds: descriptors, children and threads, which a run must give back. The
//! test measures the whole process, so it runs in a process of its own.

/// How many descriptors this process has open.
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// The processes whose parent is this one (pid and command), zombies included.
pub fn children() -> Vec<(u32, String)> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid ...`: the command may hold spaces, so split after `)`.
            let (head, tail) = stat.rsplit_once(')')?;
            let ppid: u32 = tail.split_whitespace().nth(1)?.parse().ok()?;
            let comm = head.split_once('(')?.1.to_string();
            (ppid == me).then_some((pid, comm))
        })
        .collect()
}

/// How many threads this process runs.
pub fn threads() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}
