//! The seccomp filter confined commands run under: no new sockets but the allowed kinds, no
//! tracing or reading other processes, no new namespaces, no mounts, no setuid or setgid bits,
//! no `io_uring` (whose operations would go around the filter).
//!
//! It is a short classic-BPF program, written out here rather than compiled by a library: it
//! checks the architecture (a 32-bit system call on a 64-bit host would bypass a filter written
//! for the 64-bit numbers), then the system call number, then for `socket` the address family,
//! for `clone` the namespace flags, and for the calls that set a file's mode the mode. Everything
//! refused fails with an error (`EACCES`, `EPERM`, or `ENOSYS` for `clone3` and `openat2`, so
//! the C library falls back to `clone` and `openat`, whose arguments can be checked), never by
//! killing the process, so programs report it.

/// What the filter allows beyond the strict set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FilterRules {
    /// Whether `socket` may make inet (IPv4, IPv6) and netlink sockets.
    pub(super) inet: bool,
}

// Classic BPF opcodes.
const LD_W_ABS: u16 = 0x20;
const JMP_JEQ_K: u16 = 0x15;
const JMP_JGE_K: u16 = 0x35;
const JMP_JSET_K: u16 = 0x45;
const RET_K: u16 = 0x06;

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

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

fn errno(code: i32) -> u32 {
    RET_ERRNO | (code as u32 & 0xffff)
}

fn nr(call: libc::c_long) -> u32 {
    u32::try_from(call).unwrap_or(u32::MAX)
}

/// The program for `rules`.
pub(super) fn program(rules: FilterRules) -> Vec<libc::sock_filter> {
    let mut p = vec![
        stmt(LD_W_ABS, ARCH),
        jump(JMP_JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(RET_K, RET_KILL_PROCESS),
        stmt(LD_W_ABS, NR),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        p.push(jump(JMP_JGE_K, X32_SYSCALL_BIT, 0, 1));
        p.push(stmt(RET_K, errno(libc::ENOSYS)));
    }
    for &call in DENIED {
        p.push(jump(JMP_JEQ_K, nr(call), 0, 1));
        p.push(stmt(RET_K, errno(libc::EPERM)));
    }
    // `clone3` and `openat2` take their flags and mode in a struct the filter cannot read.
    for call in [libc::SYS_clone3, libc::SYS_openat2] {
        p.push(jump(JMP_JEQ_K, nr(call), 0, 1));
        p.push(stmt(RET_K, errno(libc::ENOSYS)));
    }
    // The mode calls: refused with a setuid or setgid bit.
    for &(call, arg) in MODE_ARGS {
        p.push(jump(JMP_JEQ_K, nr(call), 0, 4));
        p.push(stmt(LD_W_ABS, ARG0 + 8 * arg));
        p.push(jump(JMP_JSET_K, SET_ID_BITS, 0, 1));
        p.push(stmt(RET_K, errno(libc::EPERM)));
        p.push(stmt(RET_K, RET_ALLOW));
    }
    // clone: refused with any namespace flag.
    p.push(jump(JMP_JEQ_K, nr(libc::SYS_clone), 0, 4));
    p.push(stmt(LD_W_ABS, ARG0));
    p.push(jump(JMP_JSET_K, CLONE_NEW_ANY, 0, 1));
    p.push(stmt(RET_K, errno(libc::EPERM)));
    p.push(stmt(RET_K, RET_ALLOW));
    // socket: only the allowed families; `socketpair` is another call, always allowed.
    let families: &[i32] = if rules.inet {
        &[libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK]
    } else {
        &[]
    };
    let checks = u8::try_from(families.len()).unwrap_or(u8::MAX);
    p.push(jump(JMP_JEQ_K, nr(libc::SYS_socket), 0, 2 + checks));
    p.push(stmt(LD_W_ABS, ARG0));
    for (i, family) in families.iter().enumerate() {
        let to_allow = checks - u8::try_from(i).unwrap_or(0);
        p.push(jump(JMP_JEQ_K, *family as u32, to_allow, 0));
    }
    p.push(stmt(RET_K, errno(libc::EACCES)));
    p.push(stmt(RET_K, RET_ALLOW));
    p
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
        let mut acc = 0u32;
        let mut pc = 0usize;
        loop {
            let ins = program[pc];
            pc += 1;
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
                RET_K => return ins.k,
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
}
