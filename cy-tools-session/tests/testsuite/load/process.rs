//! What this process holds: descriptors, children and threads, which a run must give back. The
//! test measures the whole process, so it runs in a process of its own.

/// How many descriptors this process has open.
pub fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// What this process's descriptors point at, counted by target (numbers masked), so a leak
/// report says what leaked, not only how much.
pub fn open_fd_targets() -> Vec<(String, usize)> {
    let mut counted: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    for entry in entries.filter_map(Result::ok) {
        let target = std::fs::read_link(entry.path())
            .map_or_else(|_| "?".to_string(), |t| t.to_string_lossy().into_owned());
        let masked: String = target
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .collect();
        *counted.entry(masked).or_default() += 1;
    }
    counted.into_iter().collect()
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
