#!/usr/bin/env python3
"""Tests of criterion_report.py: ratios only from estimates of the current run.

Run: python3 -m unittest discover -s scripts -p 'test_*.py' (.ci/run does).
"""
import contextlib
import io
import json
import os
import pathlib
import sys
import tempfile
import time
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import criterion_report  # noqa: E402


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.dir.name)
        self.start = time.time()

    def tearDown(self):
        self.dir.cleanup()

    def estimate(self, name: str, median_ns: float, age_s: float = 0.0):
        """Writes `name`'s estimates as criterion does, `age_s` seconds before the run start."""
        path = self.root / name / "new" / "estimates.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"median": {"point_estimate": median_ns}}))
        when = self.start - age_s
        os.utime(path, (when, when))

    def run_main(self, *args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = criterion_report.main(["--root", str(self.root), *args])
        return code, out.getvalue(), err.getvalue()

    def test_fresh_estimates_give_the_ratio(self):
        self.estimate("g/ours", 750.0)
        self.estimate("g/theirs", 1000.0)
        code, out, _ = self.run_main("--since", str(self.start), "g/ours", "g/ours::g/theirs")
        self.assertEqual(code, 0)
        self.assertEqual(out, "| `g/ours` median | 750 ns |\n| `g/ours` / `g/theirs` | 0.75x |\n")

    def test_an_estimate_older_than_the_run_is_refused_and_nothing_printed(self):
        self.estimate("g/ours", 750.0)
        self.estimate("g/theirs", 1000.0, age_s=3600)
        code, out, err = self.run_main("--since", str(self.start), "g/ours", "g/ours::g/theirs")
        self.assertEqual(code, 1)
        self.assertEqual(out, "")
        self.assertIn("`g/theirs` was last measured before this run started", err)

    def test_the_run_start_can_come_from_the_environment(self):
        self.estimate("g/ours", 750.0, age_s=3600)
        os.environ["CY_BENCH_SINCE"] = str(self.start)
        try:
            code, _, err = self.run_main("g/ours")
        finally:
            del os.environ["CY_BENCH_SINCE"]
        self.assertEqual(code, 1)
        self.assertIn("`g/ours`", err)

    def test_a_filtered_run_prints_only_what_it_measured(self):
        self.estimate("a/ours", 500.0)
        self.estimate("a/theirs", 1000.0)
        self.estimate("b/ours", 100.0, age_s=600)
        self.estimate("b/theirs", 100.0, age_s=600)
        code, out, _ = self.run_main(
            "--since", str(self.start), "--only-measured",
            "a/ours::a/theirs", "b/ours::b/theirs", "c/missing",
        )
        self.assertEqual(code, 0)
        self.assertEqual(
            out,
            "| `a/ours` / `a/theirs` | 0.50x |\n"
            "not measured in this run, so not printed: `b/ours::b/theirs`, `c/missing`\n",
        )

    def test_only_measured_needs_the_run_start(self):
        self.estimate("g/ours", 750.0)
        code, out, err = self.run_main("--only-measured", "g/ours")
        self.assertEqual(code, 2)
        self.assertEqual(out, "")
        self.assertIn("needs --since", err)

    def test_without_since_the_latest_estimate_is_read_as_before(self):
        self.estimate("g/ours", 2500.0, age_s=86400)
        code, out, _ = self.run_main("g/ours")
        self.assertEqual((code, out), (0, "| `g/ours` median | 2.50 µs |\n"))

    def test_a_missing_estimate_names_the_benchmark(self):
        code, _, err = self.run_main("--since", str(self.start), "g/never")
        self.assertEqual(code, 1)
        self.assertIn("no criterion results for `g/never`", err)


if __name__ == "__main__":
    unittest.main()
