//! The seccomp filter confined commands run under: no new sockets but the allowed kinds, no
//! tracing or reading other processes, no new namespaces, no mounts, no setuid or setgid bits,
//! no `io_uring` (whose operations would go around the filter).
//!
//! It is a short classic-BPF program, written out here (with [`bpf::Asm`](super::bpf::Asm))
//! rather than compiled by a library: it checks the architecture (a 32-bit system call on a
//! 64-bit host would bypass a filter written for the 64-bit numbers), then the system call
//! number, then for `socket` the address family, for `clone` the namespace flags, and for the
//! calls that set a file's mode the mode. Everything refused fails with an error (`EACCES`,
//! `EPERM`, or `ENOSYS` for `clone3` and `openat2`, so the C library falls back to `clone` and
//! `openat`, whose arguments can be checked), never by killing the process, so programs report
//! it.
//!
//! The number is found by a binary search over ranges of numbers rather than compared with each
//! listed call in turn, and the returns are shared, because every command installs the filter
//! between `fork` and `exec`, and installing costs in proportion to the path to a verdict (the
//! kernel runs the program once on each of the ~460 numbers, to cache which are allowed
//! whatever their arguments) and to the program's length (it compiles it). Timed in the child on
//! the 2-core test machine, `seccomp(2)` took 69-97 us with the program that walked the list
//! (128 instructions), 24-51 us with this one (69), 9-18 us with a one-instruction program; an
//! unconfined `sh -c true` takes 1-2 ms in all (see BENCHMARKS.md, "Isolation").

#[cfg(test)]
use super::bpf::RET_K;
use super::bpf::{Asm, JMP_JEQ_K, JMP_JGE_K, JMP_JSET_K, LD_W_ABS, Label};

/// What the filter allows beyond the strict set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FilterRules {
    /// Whether `socket` may make inet (IPv4, IPv6) and netlink sockets.
    pub(super) inet: bool,
}

// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
/// The low 32 bits of the first argument (little-endian hosts); argument `i` is `8 * i` on.
const ARG0: u32 = 16;

const RET_ALLOW: u32 = 0x7fff_0000;
const RET_KILL_PROCESS: u32 = 0x8000_0000;
const RET_ERRNO: u32 = 0x0005_0000;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;

/// x32 system calls share the x86_64 architecture value; they are told apart by this bit.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Every `CLONE_NEW*` flag: a confined command makes no namespace (a user namespace would give
/// it capabilities inside, and namespaces are where kernel bugs are found).
const CLONE_NEW_ANY: u32 = 0x7e02_0080;

/// Calls a confined command never makes: tracing and reading other processes (and stealing
/// their descriptors), kernel keyrings shared across the host's sessions, `io_uring`, BPF,
/// performance counters, `userfaultfd`, and entering or making namespaces.
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    libc::SYS_kcmp,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_keyctl,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_unshare,
    libc::SYS_setns,
    // Mounts: a command's view of the filesystem is the read-only one it joined.
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_mount_setattr,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
];

/// Calls answered `ENOSYS`: `clone3` and `openat2` take their flags and mode in a struct the
/// filter cannot read.
const NOT_HERE: &[libc::c_long] = &[libc::SYS_clone3, libc::SYS_openat2];

/// `S_ISUID | S_ISGID`: refused in any mode a command sets, the workspace's files included.
const SET_ID_BITS: u32 = 0o6000;

/// The calls that set a file's mode, each with the index of its mode argument. `open` and
/// `openat` are checked whatever their flags (the C library passes 0 when no file is made).
const MODE_ARGS: &[(libc::c_long, u32)] = &[
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_chmod, 1),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_open, 2),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_creat, 1),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_mkdir, 1),
    #[cfg(target_arch = "x86_64")]
    (libc::SYS_mknod, 1),
    (libc::SYS_fchmod, 1),
    (libc::SYS_fchmodat, 2),
    (libc::SYS_fchmodat2, 2),
    (libc::SYS_openat, 3),
    (libc::SYS_mkdirat, 2),
    (libc::SYS_mknodat, 2),
];

/// What the filter does with a system call, decided by its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Allow,
    /// Refused with this errno whatever the arguments.
    Errno(i32),
    /// Refused with `EPERM` when argument `n` (a mode) has a setuid or setgid bit.
    Mode(u32),
    /// `clone`: refused with `EPERM` with any namespace flag.
    Clone,
    /// `socket` under [`FilterRules::inet`]: inet and netlink families allowed, others `EACCES`.
    InetSocket,
}

fn nr(call: libc::c_long) -> u32 {
    u32::try_from(call).unwrap_or(u32::MAX)
}

fn errno(code: i32) -> u32 {
    RET_ERRNO | (code as u32 & 0xffff)
}

/// Every system call number's action, as ranges: `(first number, action)`, sorted, each
/// running up to the next one's first number (the last to `u32::MAX`), no two neighbours with
/// the same action (`chmod` and `fchmod`, say, are one range).
fn ranges(rules: FilterRules) -> Vec<(u32, Action)> {
    let mut calls: Vec<(u32, Action)> = DENIED
        .iter()
        .map(|&call| (nr(call), Action::Errno(libc::EPERM)))
        .chain(
            NOT_HERE
                .iter()
                .map(|&call| (nr(call), Action::Errno(libc::ENOSYS))),
        )
        .chain(
            MODE_ARGS
                .iter()
                .map(|&(call, arg)| (nr(call), Action::Mode(arg))),
        )
        .collect();
    calls.push((nr(libc::SYS_clone), Action::Clone));
    let socket = if rules.inet {
        Action::InetSocket
    } else {
        Action::Errno(libc::EACCES)
    };
    calls.push((nr(libc::SYS_socket), socket));
    calls.sort_by_key(|&(call, _)| call);
    let mut ranges = vec![(0, Action::Allow)];
    let mut push = |first: u32, action: Action| {
        if let Some(last) = ranges.last_mut().filter(|last| last.0 == first) {
            // The allowed gap after the previous call is empty: this call takes its place.
            last.1 = action;
            let n = ranges.len();
            if n >= 2 && ranges[n - 2].1 == action {
                ranges.pop();
            }
        } else if ranges.last().is_none_or(|last| last.1 != action) {
            ranges.push((first, action));
        }
    };
    for (call, action) in calls {
        push(call, action);
        push(call.saturating_add(1), Action::Allow);
    }
    // x32 numbers: everything from the bit on.
    #[cfg(target_arch = "x86_64")]
    push(X32_SYSCALL_BIT, Action::Errno(libc::ENOSYS));
    ranges
}

/// The program for `rules`: the architecture checked, the number's range found by a binary
/// search, then for the calls whose arguments decide, the argument checked; every return is
/// one shared instruction at the end.
pub(super) fn program(rules: FilterRules) -> Vec<libc::sock_filter> {
    let mut asm = Asm::default();
    let ranges = ranges(rules);
    // Where the search sends each action: a shared return, or the check of an argument.
    let mut actions: Vec<(Action, Label)> = Vec::new();
    for &(_, action) in &ranges {
        if actions.iter().all(|&(a, _)| a != action) {
            let label = match action {
                Action::Allow => asm.ret(RET_ALLOW),
                Action::Errno(code) => asm.ret(errno(code)),
                Action::Mode(_) | Action::Clone | Action::InetSocket => asm.label(),
            };
            actions.push((action, label));
        }
    }
    let target = |action: Action| {
        actions
            .iter()
            .find(|&&(a, _)| a == action)
            .map_or(0, |&(_, label)| label)
    };
    let (native, kill) = (asm.label(), asm.ret(RET_KILL_PROCESS));
    asm.stmt(LD_W_ABS, ARCH);
    asm.jump(JMP_JEQ_K, AUDIT_ARCH, native, kill);
    asm.place(native);
    asm.stmt(LD_W_ABS, NR);
    search(&mut asm, &ranges, &target);
    let (allow, eperm) = (asm.ret(RET_ALLOW), asm.ret(errno(libc::EPERM)));
    for &(action, label) in &actions {
        let (arg, bits) = match action {
            Action::Mode(arg) => (arg, SET_ID_BITS),
            Action::Clone => (0, CLONE_NEW_ANY),
            Action::InetSocket => {
                asm.place(label);
                asm.stmt(LD_W_ABS, ARG0);
                let (inet6, netlink) = (asm.label(), asm.label());
                let eacces = asm.ret(errno(libc::EACCES));
                asm.jump(JMP_JEQ_K, libc::AF_INET as u32, allow, inet6);
                asm.place(inet6);
                asm.jump(JMP_JEQ_K, libc::AF_INET6 as u32, allow, netlink);
                asm.place(netlink);
                asm.jump(JMP_JEQ_K, libc::AF_NETLINK as u32, allow, eacces);
                continue;
            }
            Action::Allow | Action::Errno(_) => continue,
        };
        asm.place(label);
        asm.stmt(LD_W_ABS, ARG0 + 8 * arg);
        asm.jump(JMP_JSET_K, bits, eperm, allow);
    }
    asm.finish()
}

/// The binary search of `ranges` (two or more) on the number in the accumulator: each test
/// halves them, down to a single range, which goes to its action's label.
fn search(asm: &mut Asm, ranges: &[(u32, Action)], target: &impl Fn(Action) -> Label) {
    let (left, right) = ranges.split_at(ranges.len() / 2);
    let side = |asm: &mut Asm, half: &[(u32, Action)]| match half {
        [(_, action)] => (target(*action), false),
        _ => (asm.label(), true),
    };
    let (to_left, left_tree) = side(asm, left);
    let (to_right, right_tree) = side(asm, right);
    asm.jump(JMP_JGE_K, right[0].0, to_right, to_left);
    if left_tree {
        asm.place(to_left);
        search(asm, left, target);
    }
    if right_tree {
        asm.place(to_right);
        search(asm, right, target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `program` the way the kernel would on one system call, for its return value.
    fn run(program: &[libc::sock_filter], arch: u32, nr: u32, arg0: u32) -> u32 {
        run_args(program, arch, nr, &[arg0])
    }

    /// [`run`] with the low words of the first arguments.
    fn run_args(program: &[libc::sock_filter], arch: u32, nr: u32, args: &[u32]) -> u32 {
        run_counted(program, arch, nr, args).0
    }

    /// [`run_args`], and how many instructions it took.
    fn run_counted(
        program: &[libc::sock_filter],
        arch: u32,
        nr: u32,
        args: &[u32],
    ) -> (u32, usize) {
        let mut acc = 0u32;
        let mut pc = 0usize;
        let mut steps = 0;
        loop {
            let ins = program[pc];
            pc += 1;
            steps += 1;
            match ins.code {
                LD_W_ABS => {
                    acc = match ins.k {
                        NR => nr,
                        ARCH => arch,
                        k if k >= ARG0 && (k - ARG0).is_multiple_of(8) => {
                            args.get(((k - ARG0) / 8) as usize).copied().unwrap_or(0)
                        }
                        other => panic!("unexpected load at {other}"),
                    }
                }
                RET_K => return (ins.k, steps),
                code => {
                    let taken = match code {
                        JMP_JEQ_K => acc == ins.k,
                        JMP_JGE_K => acc >= ins.k,
                        JMP_JSET_K => acc & ins.k != 0,
                        other => panic!("unexpected opcode {other:#x}"),
                    };
                    pc += usize::from(if taken { ins.jt } else { ins.jf });
                }
            }
        }
    }

    #[test]
    fn sockets_namespaces_and_tracing_are_refused_the_rest_allowed() {
        let strict = program(FilterRules { inet: false });
        let network = program(FilterRules { inet: true });
        let call = |p: &[libc::sock_filter], call: libc::c_long, arg0: i32| {
            run(p, AUDIT_ARCH, nr(call), arg0 as u32)
        };
        for p in [&strict, &network] {
            assert_eq!(call(p, libc::SYS_read, 0), RET_ALLOW);
            assert_eq!(call(p, libc::SYS_socketpair, libc::AF_UNIX), RET_ALLOW);
            assert_eq!(
                call(p, libc::SYS_socket, libc::AF_UNIX),
                errno(libc::EACCES)
            );
            assert_eq!(call(p, libc::SYS_ptrace, 0), errno(libc::EPERM));
            assert_eq!(call(p, libc::SYS_pidfd_getfd, 0), errno(libc::EPERM));
            assert_eq!(call(p, libc::SYS_io_uring_setup, 0), errno(libc::EPERM));
            assert_eq!(call(p, libc::SYS_clone3, 0), errno(libc::ENOSYS));
            // A thread (no namespace flag) is allowed; a user namespace is not.
            assert_eq!(call(p, libc::SYS_clone, 0x003d_0f00), RET_ALLOW);
            assert_eq!(call(p, libc::SYS_clone, 0x1000_0000), errno(libc::EPERM));
            assert_eq!(run(p, 0x4000_0003, nr(libc::SYS_read), 0), RET_KILL_PROCESS);
        }
        for family in [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK] {
            assert_eq!(call(&strict, libc::SYS_socket, family), errno(libc::EACCES));
            assert_eq!(call(&network, libc::SYS_socket, family), RET_ALLOW);
        }
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            run(
                &strict,
                AUDIT_ARCH,
                X32_SYSCALL_BIT | 41,
                libc::AF_INET as u32
            ),
            errno(libc::ENOSYS)
        );
    }

    #[test]
    fn setuid_and_setgid_modes_mounts_and_openat2_are_refused() {
        let p = program(FilterRules { inet: false });
        let call = |call: libc::c_long, args: &[u32]| run_args(&p, AUDIT_ARCH, nr(call), args);
        // The mode is the second, third or fourth argument; the others may hold anything.
        for (mode, allowed) in [
            (0o755, true),
            (0o4755, false),
            (0o2755, false),
            (0o6000, false),
        ] {
            let want = if allowed {
                RET_ALLOW
            } else {
                errno(libc::EPERM)
            };
            assert_eq!(call(libc::SYS_fchmod, &[3, mode]), want, "{mode:o}");
            assert_eq!(call(libc::SYS_fchmodat, &[3, 0, mode]), want, "{mode:o}");
            assert_eq!(
                call(libc::SYS_fchmodat2, &[3, 0, mode, 0]),
                want,
                "{mode:o}"
            );
            assert_eq!(
                call(libc::SYS_openat, &[3, 0, 0o101, mode]),
                want,
                "{mode:o}"
            );
            assert_eq!(call(libc::SYS_mkdirat, &[3, 0, mode]), want, "{mode:o}");
            assert_eq!(call(libc::SYS_mknodat, &[3, 0, mode, 0]), want, "{mode:o}");
            #[cfg(target_arch = "x86_64")]
            for c in [
                libc::SYS_chmod,
                libc::SYS_creat,
                libc::SYS_mkdir,
                libc::SYS_mknod,
            ] {
                assert_eq!(call(c, &[0, mode]), want, "{c} {mode:o}");
            }
            #[cfg(target_arch = "x86_64")]
            assert_eq!(call(libc::SYS_open, &[0, 0o101, mode]), want, "{mode:o}");
        }
        // A setuid bit in another argument is not a mode.
        assert_eq!(call(libc::SYS_fchmodat, &[0o4000, 0, 0o644]), RET_ALLOW);
        assert_eq!(call(libc::SYS_openat2, &[3, 0, 0, 24]), errno(libc::ENOSYS));
        for c in [libc::SYS_mount, libc::SYS_umount2, libc::SYS_mount_setattr] {
            assert_eq!(call(c, &[0]), errno(libc::EPERM));
        }
    }
    /// What the lists say `call` with `args` gets, worked out without the program.
    fn expected(rules: FilterRules, call: u32, args: &[u32]) -> u32 {
        let arg = |i: u32| args.get(i as usize).copied().unwrap_or(0);
        #[cfg(target_arch = "x86_64")]
        if call >= X32_SYSCALL_BIT {
            return errno(libc::ENOSYS);
        }
        if DENIED.iter().any(|&c| nr(c) == call) {
            return errno(libc::EPERM);
        }
        if NOT_HERE.iter().any(|&c| nr(c) == call) {
            return errno(libc::ENOSYS);
        }
        if let Some(&(_, i)) = MODE_ARGS.iter().find(|&&(c, _)| nr(c) == call) {
            return if arg(i) & SET_ID_BITS == 0 {
                RET_ALLOW
            } else {
                errno(libc::EPERM)
            };
        }
        if call == nr(libc::SYS_clone) && arg(0) & CLONE_NEW_ANY != 0 {
            return errno(libc::EPERM);
        }
        if call == nr(libc::SYS_socket) {
            let inet = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];
            return if rules.inet && inet.iter().any(|&f| f as u32 == arg(0)) {
                RET_ALLOW
            } else {
                errno(libc::EACCES)
            };
        }
        RET_ALLOW
    }

    /// The binary search and the shared returns change nothing the lists decide: every number
    /// (the x32 ones included), with modes, flags and families in each argument a call reads.
    #[test]
    fn every_system_call_number_gets_what_the_lists_say() {
        let modes = [0, 0o644, 0o755, 0o4755, 0o2755, 0o6000, 0o1777];
        let families = [
            libc::AF_UNIX,
            libc::AF_INET,
            libc::AF_INET6,
            libc::AF_NETLINK,
            17,
        ];
        let mut numbers: Vec<u32> = (0..1024).collect();
        numbers.extend([0x3fff_ffff, 0x4000_0000, 0x4000_0029, 0x7fff_ffff, u32::MAX]);
        let mut cases: Vec<[u32; 4]> = Vec::new();
        for mode in modes {
            // The mode in each place a call takes it, the other arguments ordinary.
            cases.extend([
                [3, mode, mode, mode],
                [3, 0, 0, mode],
                [3, 0, mode, 0],
                [mode, 0, 0, 0],
            ]);
        }
        for family in families {
            cases.push([family as u32, 1, 0, 0]);
        }
        cases.extend([
            [0x003d_0f00, 0, 0, 0],
            [0x1000_0000, 0, 0, 0],
            [0x0002_0000, 0, 0, 0],
        ]);
        for inet in [false, true] {
            let rules = FilterRules { inet };
            let p = program(rules);
            for &call in &numbers {
                for args in &cases {
                    assert_eq!(
                        run_args(&p, AUDIT_ARCH, call, args),
                        expected(rules, call, args),
                        "call {call}, arguments {args:?}, inet {inet}"
                    );
                }
            }
        }
    }

    /// The search needs its ranges sorted and distinct: a number listed twice, or lists that
    /// overlap, would break it.
    #[test]
    fn the_ranges_are_sorted_and_each_differs_from_the_next() {
        for inet in [false, true] {
            let ranges = ranges(FilterRules { inet });
            assert_eq!(ranges[0].0, 0);
            for pair in ranges.windows(2) {
                assert!(pair[0].0 < pair[1].0, "{pair:?}");
                assert_ne!(pair[0].1, pair[1].1, "{pair:?}");
            }
        }
        let mut listed: Vec<u32> = DENIED.iter().chain(NOT_HERE).map(|&c| nr(c)).collect();
        listed.extend(MODE_ARGS.iter().map(|&(c, _)| nr(c)));
        listed.extend([nr(libc::SYS_clone), nr(libc::SYS_socket)]);
        let count = listed.len();
        listed.sort_unstable();
        listed.dedup();
        assert_eq!(listed.len(), count, "a call is listed twice");
    }

    /// Installing the filter costs in proportion to the path to a verdict (the kernel runs the
    /// program on every number then) and to its length (it compiles it). The program that
    /// compared the number with each listed call in turn was 128 instructions long and took 47
    /// to allow an ordinary call.
    #[test]
    fn a_verdict_takes_a_short_path_through_a_short_program() {
        for inet in [false, true] {
            let p = program(FilterRules { inet });
            assert!(p.len() <= 80, "{} instructions", p.len());
            let path = |call: u32| run_counted(&p, AUDIT_ARCH, call, &[0, 0, 0, 0]).1;
            let longest = (0..1024).map(path).max().unwrap_or(0);
            assert!(longest <= 13, "{longest} instructions to a verdict");
            // A call decided by its number alone (`read`): the architecture, the number, a
            // search of six tests at most, the return.
            assert!(path(0) <= 10, "{} instructions for `read`", path(0));
            // Another architecture is refused at once.
            assert_eq!(run_counted(&p, 0x4000_0003, 0, &[0]).1, 3);
        }
    }
}
