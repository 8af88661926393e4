//! The escape attempts, as shell commands and as Python.

use super::host::Host;

/// The attempts as shell commands: name, command. `@H@` is the host folder (`@HREL@` the same
/// without its leading `/`), `@P@` the TCP port, `@A@` the abstract socket's name, `@R@` the runtime's pid (this
/// process, which runs the sandbox and the control server). Each prints
/// what it got; the success marker is spelled in two parts so the command's own text (echoed
/// in some outputs) never contains it.
pub fn shell_attempts() -> Vec<(&'static str, &'static str)> {
    vec![
        ("absolute path", "cat @H@/outside/secret.txt"),
        ("ssh key", "cat @H@/home/.ssh/id_rsa"),
        ("dot-dot", "cat ../outside/secret.txt"),
        (
            "chdir upwards",
            "cd .. && cat outside/secret.txt; cd / && cat @HREL@/outside/secret.txt",
        ),
        (
            "/proc/self/root",
            "cat /proc/self/root@H@/outside/secret.txt",
        ),
        (
            "/proc/1/cwd",
            "ls /proc/1/cwd/ && cat /proc/1/root@H@/outside/secret.txt",
        ),
        (
            "runtime's environment",
            "cat /proc/@R@/environ; for p in /proc/[0-9]*; do cat $p/environ; done 2>/dev/null | tr '\\0' '\\n' | grep RUNTIMEENV",
        ),
        (
            "runtime's cwd and fds",
            "ls -l /proc/@R@/cwd/ /proc/@R@/fd/ && echo ES''CAPED",
        ),
        (
            "symlink made at run time",
            "ln -s @H@/outside/secret.txt link && cat link",
        ),
        (
            "folder symlink made at run time",
            "ln -s @H@/outside out && cat out/secret.txt",
        ),
        (
            "hard link made at run time",
            "ln @H@/outside/secret.txt hard && cat hard",
        ),
        (
            "write outside",
            "echo pwned > @H@/outside/pwned.txt; echo pwned > @H@/pwned.txt",
        ),
        ("write /tmp", "echo pwned > /tmp/cy-escape-pwned"),
        (
            "write the home folder",
            "echo pwned > /root/cy-escape-pwned",
        ),
        ("read a neighbour", "cat @H@/neighbour/data.txt"),
        ("write a neighbour", "echo pwned > @H@/neighbour/pwned.txt"),
        (
            "loopback TCP",
            "python3 -c \"import socket,sys; s=socket.create_connection(('127.0.0.1', int(sys.argv[1]))); print(s.recv(99).decode())\" @P@",
        ),
        (
            "another loopback address",
            "python3 -c \"import socket,sys; s=socket.create_connection(('127.0.0.2', int(sys.argv[1]))); print(s.recv(99).decode())\" @P@",
        ),
        (
            "IPv6 loopback",
            "python3 -c \"import socket,sys; s=socket.create_connection(('::1', int(sys.argv[1]))); print(s.recv(99).decode())\" @P@",
        ),
        (
            "host service's Unix socket",
            "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(99).decode())\" @H@/outside/host.sock",
        ),
        (
            "abstract Unix socket",
            "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect('\\0'+sys.argv[1]); print(s.recv(99).decode())\" @A@",
        ),
        (
            "ptrace the runtime",
            "python3 -c \"import ctypes,os; c=ctypes.CDLL(None); r=c.ptrace(16, @R@, 0, 0); c.ptrace(17, @R@, 0, 0); print('ES'+'CAPED' if r == 0 else 'refused')\"",
        ),
        (
            "steal a descriptor",
            "python3 -c \"import ctypes,os; c=ctypes.CDLL(None, use_errno=True); fd=c.syscall(434, @R@, 0); g=c.syscall(438, fd, 0, 0) if fd >= 0 else -1; print('ES'+'CAPED' if g >= 0 else 'refused')\"",
        ),
        ("signal the runtime", "kill -0 @R@ && echo ES''CAPED"),
        (
            "raise a limit",
            "ulimit -H -t unlimited && echo ES''CAPED; python3 -c \"import resource as r; r.setrlimit(r.RLIMIT_CPU, (r.RLIM_INFINITY, r.RLIM_INFINITY)); print('ES'+'CAPED')\"",
        ),
        (
            "a setuid program",
            "./suid-id -u | grep -qx 65534 && echo ES''CAPED",
        ),
        (
            "capabilities a program starts with",
            "grep -E '^Cap(Eff|Prm|Amb):' /proc/self/status | grep -qv ':[[:space:]]*0*$' && echo ES''CAPED",
        ),
        ("a user namespace", "unshare -Ur cat @H@/outside/secret.txt"),
        ("make a device", "mknod dev c 1 3 && echo ES''CAPED"),
    ]
}

/// The same kinds of attempt in Python, for `execute_code`.
pub fn python_attempts() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "open outside",
            "print(open(H + '/outside/secret.txt').read())",
        ),
        (
            "open ssh key",
            "print(open(H + '/home/.ssh/id_rsa').read())",
        ),
        (
            "chdir upwards",
            "os.chdir('..'); print(open('outside/secret.txt').read())",
        ),
        (
            "proc root",
            "print(open('/proc/self/root' + H + '/outside/secret.txt').read())",
        ),
        (
            "symlink",
            "os.symlink(H + '/outside/secret.txt', 'pylink'); print(open('pylink').read())",
        ),
        (
            "write outside",
            "open(H + '/outside/pwned.txt', 'w').write('x')",
        ),
        (
            "connect loopback",
            "s = socket.create_connection(('127.0.0.1', P)); print(s.recv(99).decode())",
        ),
        (
            "unix socket",
            "s = socket.socket(socket.AF_UNIX); s.connect(H + '/outside/host.sock'); print(s.recv(99).decode())",
        ),
        (
            "runtime environ",
            "print(open('/proc/%d/environ' % R, 'rb').read())",
        ),
        ("listdir home", "print(os.listdir(H + '/home/.ssh'))"),
    ]
}

pub fn expand(command: &str, host: &Host) -> String {
    command
        .replace("@H@", &host.root.display().to_string())
        .replace(
            "@HREL@",
            host.root.display().to_string().trim_start_matches('/'),
        )
        .replace("@P@", &host.tcp_port.to_string())
        .replace("@A@", &host.abstract_name)
        .replace("@R@", &std::process::id().to_string())
}

pub fn python(attempt: &str, host: &Host) -> String {
    format!(
        "import os, socket\nH = {h:?}\nP = {p}\nR = {r}\ntry:\n    {attempt}\nexcept Exception as err:\n    print('refused:', type(err).__name__)\n",
        h = host.root.display().to_string(),
        p = host.tcp_port,
        r = std::process::id(),
    )
}
