#!/usr/bin/env python3
"""Compile cost of `#[tool]`: 100 tools written with the attribute against the same 100 written
by hand against `ToolDefinition`.

Generates a scratch workspace with two library crates that define the same 100 tools (same
parameters, docs, defaults, renames, capabilities, annotations and registrations):

* `bench_macro`: each tool is one `#[tool] async fn`;
* `bench_hand`: each tool is a parameter struct deriving `Deserialize` and `JsonSchema`, a
  `capability_set!`, a handler fn boxing an async block, a `static ToolDefinition` and an
  `inventory::submit!`, as the runtime's own docs show.

Dependencies (cy-tools and everything under it) are built once and shared; then each crate is
built from clean (`cargo clean -p`, incremental state removed) several times, alternating, and
the median wall time and CPU time (user + system, of cargo and the compilers it ran) of each
are reported with their ratios. The target is checked on CPU time, which other work on the
machine disturbs far less than wall time. With `--full`, each crate is also built once from a
completely empty target directory, dependencies included.

Not part of CI: timings depend on the machine. Usage:

    scripts/compile-bench.py [--repo PATH] [--dir PATH] [--runs N] [--tools N] [--full]

Exits 1 when the median `cargo build` CPU-time ratio exceeds the target (1.5).
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_RATIO = 1.5

# Five tool shapes, cycled: (doc, options, params, body). A param is
# (name, type, doc, default_expr or None, rename or None); `@name@` in a body is the argument.
SHAPES = [
    (
        "Read part of a file from the workspace.",
        {"caps": ["env"], "read_only": True},
        [
            ("path", "String", "Path relative to the workspace root.", None, None),
            ("offset", "u64", "1-based line to start from.", "1", None),
            ("limit", "Option<u64>", "Maximum number of lines.", None, None),
        ],
        'format!("{} {} {} {:?}", ctx.env().describe(), @path@, @offset@, @limit@)',
    ),
    (
        "Add two integers.",
        {"caps": [], "read_only": True, "idempotent": True},
        [
            ("a", "i64", "The first addend.", None, None),
            ("b", "i64", "The second addend.", None, None),
        ],
        "(@a@.wrapping_add(@b@)).to_string()",
    ),
    (
        "Search notes by text and tags.",
        {"caps": [], "open_world": False},
        [
            ("query", "String", "Text to look for.", None, None),
            ("tags", "Vec<String>", "Tags every note must have.", None, None),
            ("exact", "bool", "Match the whole text.", "false", None),
        ],
        'format!("{} {} {}", @query@, @tags@.len(), @exact@)',
    ),
    (
        "Shorten a text.",
        {"caps": [], "call": True},
        [
            ("text", "String", "The text.", None, None),
            ("limit", "Option<u32>", "The most characters to keep.", None, "max_len"),
        ],
        'format!("{} {} {:?}", call.id, @text@, @limit@)',
    ),
    (
        "Tell who is calling.",
        {"caps": ["session"], "destructive": False},
        [],
        "ctx.session().session_id.clone()",
    ),
]


def fill(body, argument):
    """Replaces each `@name@` in `body` with `argument(name)`."""
    parts = body.split("@")
    return "".join(argument(part) if i % 2 else part for i, part in enumerate(parts))


def pascal(name):
    return "".join(part.capitalize() for part in name.split("_"))


def annotations(options):
    chain = ""
    if options.get("read_only"):
        chain += ".read_only()"
    if "destructive" in options:
        chain += f".destructive({str(options['destructive']).lower()})"
    if options.get("idempotent"):
        chain += ".idempotent()"
    if "open_world" in options:
        chain += f".open_world({str(options['open_world']).lower()})"
    return chain


def macro_tool(index):
    doc, options, params, body = SHAPES[index % len(SHAPES)]
    name = f"tool_{index}"
    attr = []
    if options["caps"]:
        attr.append(f"capabilities({', '.join(options['caps'])})")
    for flag in ("read_only", "idempotent"):
        if options.get(flag):
            attr.append(flag)
    for key in ("destructive", "open_world"):
        if key in options:
            attr.append(f"{key} = {str(options[key]).lower()}")
    args = []
    if options["caps"]:
        args.append("    ctx: Ctx<'_>,")
    if options.get("call"):
        args.append("    call: CallInfo<'_>,")
    for pname, ptype, pdoc, default, rename in params:
        args.append(f"    /// {pdoc}")
        helper = []
        if default is not None:
            helper.append(f"default = {default}")
        if rename is not None:
            helper.append(f'rename = "{rename}"')
        if helper:
            args.append(f"    #[arg({', '.join(helper)})]")
        args.append(f"    {pname}: {ptype},")
    attribute = f"#[tool({', '.join(attr)})]" if attr else "#[tool]"
    return (
        f"/// Tool {index}: {doc}\n"
        f"{attribute}\n"
        f"pub async fn {name}(\n" + "\n".join(args) + "\n) -> Result<String, ToolError> {\n"
        f"    Ok({fill(body, lambda p: p)})\n"
        "}\n"
    )


def hand_tool(index):
    doc, options, params, body = SHAPES[index % len(SHAPES)]
    name = f"tool_{index}"
    ty = pascal(name)
    out = [f"/// The arguments of `{name}`.",
           "#[derive(serde::Deserialize, schemars::JsonSchema)]",
           "#[serde(deny_unknown_fields)]",
           f"pub struct {ty}Params {{"]
    defaults = []
    for pname, ptype, pdoc, default, rename in params:
        out.append(f"    /// {pdoc}")
        if default is not None:
            out.append(f'    #[serde(default = "{name}_default_{pname}")]')
            defaults.append(f"fn {name}_default_{pname}() -> {ptype} {{\n    {default}\n}}")
        if rename is not None:
            out.append(f'    #[serde(rename = "{rename}")]')
        out.append(f"    {pname}: {ptype},")
    out.append("}")
    out.extend(defaults)
    if options["caps"]:
        caps = f"{ty}Caps"
        out.append(f"capability_set!(\n    /// The capabilities of `{name}`.\n    pub {caps}: {', '.join(options['caps'])}\n);")
    else:
        caps = "NoCapabilities"
    ctx = "ctx" if options["caps"] else "_ctx"
    call = "call" if options.get("call") else "_call"
    body_expr = fill(body, lambda p: f"p.{p}")
    p = "p" if params else "_p"
    out.append(
        f"fn {name}_handler<'a>({p}: {ty}Params, {ctx}: Ctx<'a, {caps}>, {call}: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {{\n"
        "    Box::pin(async move {\n"
        f"        let result: Result<String, ToolError> = Ok({body_expr});\n"
        "        result.into_tool_result()\n"
        "    })\n"
        "}"
    )
    chain = annotations(options)
    with_annotations = f"\n    .with_annotations(ToolAnnotations::DEFAULT{chain})" if chain else ""
    out.append(
        f"/// Tool {index}: {doc}\n"
        f"pub static {name.upper()}: ToolDefinition<{ty}Params, {caps}> =\n"
        f'    ToolDefinition::new("{name}", "Tool {index}: {doc}", {name}_handler){with_annotations};'
    )
    out.append(f'inventory::submit!(ToolRegistration::new(&{name.upper()}, "bench_hand::{name}"));')
    return "\n".join(out) + "\n"


# Appended to both crates, outside the measured library build: proves they define the same tools.
DUMP_TEST = """
#[cfg(test)]
mod dump {
    use cy_tools::DynTool;

    #[test]
    fn dump() {
        let registry = cy_tools::ToolRegistry::linked().unwrap();
        assert_eq!(registry.len(), TOOLS);
        let mut out = String::new();
        for (name, tool) in registry.definitions() {
            out.push_str(&format!(
                "{name}\\t{}\\t{:?}\\t{}\\t{:?}\\t{}\\n",
                tool.description(),
                tool.annotations(),
                tool.capabilities(),
                tool.timeout(),
                tool.schema().unwrap().value()
            ));
        }
        std::fs::write(std::env::var("BENCH_DUMP").unwrap(), out).unwrap();
    }
}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def generate(repo, root, tools):
    cy_tools = os.path.join(repo, "cy-tools")
    write(os.path.join(root, "Cargo.toml"),
          '[workspace]\nresolver = "3"\nmembers = ["bench_macro", "bench_hand"]\n')
    shutil.copy(os.path.join(repo, "rust-toolchain.toml"), root)
    shutil.copy(os.path.join(repo, "Cargo.lock"), root)
    deps = f'cy-tools = {{ path = "{cy_tools}" }}\n'
    write(os.path.join(root, "bench_macro", "Cargo.toml"),
          '[package]\nname = "bench_macro"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
          "[dependencies]\n" + deps)
    write(os.path.join(root, "bench_hand", "Cargo.toml"),
          '[package]\nname = "bench_hand"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
          "[dependencies]\n" + deps +
          'inventory = "0.3"\nschemars = { version = "1", default-features = false, features = ["derive", "std"] }\n'
          'serde = { version = "1", features = ["derive"] }\n')
    write(os.path.join(root, "bench_macro", "src", "lib.rs"),
          "//! 100 tools written with `#[tool]`.\n\nuse cy_tools::prelude::*;\n\n"
          + "\n".join(macro_tool(i) for i in range(tools))
          + DUMP_TEST.replace("TOOLS", str(tools)))
    write(os.path.join(root, "bench_hand", "src", "lib.rs"),
          "//! The same tools written by hand against `ToolDefinition`.\n\n"
          "use cy_tools::prelude::*;\n"
          "use cy_tools::{capability_set, BoxFuture, NoCapabilities, ToolAnnotations, ToolDefinition, ToolRegistration};\n\n"
          + "\n".join(hand_tool(i) for i in range(tools))
          + DUMP_TEST.replace("TOOLS", str(tools)))


def cargo(root, target, *args, env=None):
    env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_TERM_COLOR="never", **(env or {}))
    result = subprocess.run(["cargo", *args], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        raise SystemExit(f"cargo {' '.join(args)} failed")
    return result.stdout


def timed_clean_build(root, target, crate, command):
    cargo(root, target, "clean", "-p", crate)
    incremental = os.path.join(target, "debug", "incremental")
    if os.path.isdir(incremental):
        for entry in os.listdir(incremental):
            if entry.startswith(crate + "-"):
                shutil.rmtree(os.path.join(incremental, entry))
    return measure(lambda: cargo(root, target, command, "-p", crate))


def measure(action):
    """(wall seconds, CPU seconds of cargo and every compiler it ran) of `action`. CPU time is
    what the build costs; wall time also counts whatever else the machine was doing."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    action()
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=os.path.dirname(here), help="the cy-tools checkout")
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "cy-tools-compile-bench"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--full", action="store_true",
                        help="also build each crate once from an empty target dir, dependencies included")
    args = parser.parse_args()

    root = os.path.abspath(args.dir)
    shutil.rmtree(root, ignore_errors=True)
    generate(os.path.abspath(args.repo), root, args.tools)
    target = os.path.join(root, "target")
    print(f"workspace: {root}")
    print(f"toolchain: {cargo(root, target, '--version').strip()}")

    print("building dependencies once ...", flush=True)
    cargo(root, target, "build", "-p", "bench_hand")
    cargo(root, target, "build", "-p", "bench_macro")
    cargo(root, target, "check", "-p", "bench_hand")
    cargo(root, target, "check", "-p", "bench_macro")

    print("checking that both crates define the same tools ...", flush=True)
    dumps = {}
    for crate in ("bench_hand", "bench_macro"):
        dump = os.path.join(root, crate + ".tools.txt")
        cargo(root, target, "test", "-p", crate, env={"BENCH_DUMP": dump})
        with open(dump) as f:
            dumps[crate] = f.read()
    if dumps["bench_hand"] != dumps["bench_macro"]:
        raise SystemExit(f"the two crates define different tools: compare {root}/*.tools.txt")
    print(f"  same {args.tools} names, descriptions, annotations, capabilities, timeouts and schemas")

    results = {}
    for command in ("build", "check"):
        times = {"bench_hand": [], "bench_macro": []}
        for run in range(args.runs):
            order = ["bench_hand", "bench_macro"] if run % 2 == 0 else ["bench_macro", "bench_hand"]
            for crate in order:
                times[crate].append(timed_clean_build(root, target, crate, command))
        print(f"cargo {command}, {args.tools} tools, crate only, median of {args.runs}:")
        medians = {}
        for crate, label in (("bench_hand", "hand-written"), ("bench_macro", "#[tool]     ")):
            wall = statistics.median(t[0] for t in times[crate])
            cpu = statistics.median(t[1] for t in times[crate])
            medians[crate] = (wall, cpu)
            runs = " ".join(f"{w:.2f}/{c:.2f}" for w, c in times[crate])
            print(f"  {label} : wall {wall:6.2f}s  cpu {cpu:6.2f}s   (wall/cpu per run: {runs})")
        wall_ratio = medians["bench_macro"][0] / medians["bench_hand"][0]
        cpu_ratio = medians["bench_macro"][1] / medians["bench_hand"][1]
        results[command] = cpu_ratio
        print(f"  ratio        : wall {wall_ratio:6.2f}x  cpu {cpu_ratio:6.2f}x (target <= {TARGET_RATIO}x)")

    if args.full:
        for crate in ("bench_hand", "bench_macro"):
            full_target = os.path.join(root, "target-full-" + crate)
            shutil.rmtree(full_target, ignore_errors=True)
            wall, cpu = measure(lambda: cargo(root, full_target, "build", "-p", crate))
            print(f"cargo build from an empty target dir, {crate}: wall {wall:.1f}s  cpu {cpu:.1f}s")

    if results["build"] > TARGET_RATIO:
        print(f"over target: build CPU ratio {results['build']:.2f}x > {TARGET_RATIO}x")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
