#!/usr/bin/env python3
"""The test of scripts/checks/check-doc-examples.py (ctest doc_examples_self_test): synthetic Markdown
files with console examples run against the real binary, with the right numbers (pass), a
drifted number (fail, one line naming it), a number within the tolerance, a block's own
tolerance, changed text, elided and extra lines, skip markers and failing commands; and the
README's own example with one of its numbers moved by 10% (fail) and as it is (pass).

Usage: tests/doc_examples_check_test.py [PATH/TO/infergrid]   (or INFERGRID_BIN; default
build/sim/infergrid). Standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKER = os.path.join(ROOT, "scripts", "checks", "check-doc-examples.py")
BINARY = os.environ.get("INFERGRID_BIN", os.path.join(ROOT, "build", "sim", "infergrid"))

COMMAND = "$ infergrid bench one-batch --model=meta-llama/Meta-Llama-3-8B --input-len=128 --output-len=8"


def printed_by(command):
    """What the binary prints for a `$ infergrid ...` line, trailing blank lines dropped."""
    argv = [BINARY] + command[len("$ infergrid "):].split()
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return out.rstrip("\n").split("\n")


class CheckDocExamples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.output = printed_by(COMMAND)
        # 'Prefill. latency: 0.00823 s, ...': the line and the number the tests move
        cls.prefill = next(i for i, line in enumerate(cls.output) if line.startswith("Prefill."))
        cls.latency = re.search(r"latency: ([0-9.]+) s", cls.output[cls.prefill]).group(1)

    def check(self, markdown):
        """(exit code, stdout lines) of the checker on one Markdown file holding `markdown`."""
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "example.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(markdown)
            done = subprocess.run([sys.executable, CHECKER, "--bin", BINARY, "--root", ROOT, path],
                                  capture_output=True, text=True, timeout=120)
        lines = [line.replace(path, "example.md") for line in done.stdout.splitlines()]
        return done.returncode, lines

    def block(self, output, before="", fence="console"):
        return f"Text.\n\n{before}```{fence}\n{COMMAND}\n" + "\n".join(output) + "\n```\n"

    def with_latency(self, value):
        output = list(self.output)
        output[self.prefill] = output[self.prefill].replace(self.latency, value)
        return output

    def test_the_printed_output_passes(self):
        self.assertEqual(self.check(self.block(self.output)), (0, []))

    def test_whitespace_is_normalised(self):
        output = ["  " + "   ".join(line.split()) + "   " for line in self.output]
        self.assertEqual(self.check(self.block(output)), (0, []))

    def test_a_drifted_number_fails_naming_its_line_and_both_values(self):
        drifted = f"{float(self.latency) * 1.1:.5f}"
        code, lines = self.check(self.block(self.with_latency(drifted)))
        self.assertEqual(code, 1)
        line = 5 + self.prefill  # 'Text.', blank, fence, command, then the output
        change = (float(self.latency) - float(drifted)) / float(drifted) * 100
        self.assertEqual(lines, [f"example.md:{line}: documented {drifted}, printed {self.latency} "
                                 f"({change:+.1f}%, tolerance 2%)"])

    def test_a_number_within_the_tolerance_passes(self):
        within = f"{float(self.latency) * 1.015:.5f}"
        self.assertEqual(self.check(self.block(self.with_latency(within))), (0, []))

    def test_a_block_sets_its_own_tolerance(self):
        drifted = f"{float(self.latency) * 1.1:.5f}"
        markdown = self.block(self.with_latency(drifted), "<!-- doc-example: tolerance=15% -->\n")
        self.assertEqual(self.check(markdown), (0, []))
        markdown = self.block(self.with_latency(drifted), "<!-- doc-example: tolerance=5% -->\n")
        self.assertEqual(self.check(markdown)[0], 1)

    def test_changed_text_fails(self):
        output = list(self.output)
        output[self.prefill] = output[self.prefill].replace("Prefill.", "Prefil.")
        code, lines = self.check(self.block(output))
        self.assertEqual(code, 1)
        self.assertIn("documented 'Prefil. latency", lines[0])

    def test_dots_elide_lines_and_nothing_else_does(self):
        elided = self.output[:2] + ["..."] + self.output[-1:]
        self.assertEqual(self.check(self.block(elided)), (0, []))
        self.assertEqual(self.check(self.block(self.output[:2] + ["..."])), (0, []))
        code, lines = self.check(self.block(self.output[:-1]))
        self.assertEqual(code, 1)
        self.assertIn("printed more than documented", lines[0])
        code, lines = self.check(self.block(self.output + ["one more line"]))
        self.assertEqual(code, 1)
        self.assertIn("printed nothing more", lines[0])

    def test_a_line_ending_in_dots_matches_the_start_of_a_printed_line(self):
        output = list(self.output)
        output[0] = " ".join(output[0].split()[:3]) + " ..."
        self.assertEqual(self.check(self.block(output)), (0, []))

    def test_a_skipped_block_is_not_run_and_needs_a_reason(self):
        failing = ["$ infergrid simulate --model=no-such-model"]
        markdown = "```console\n" + "\n".join(failing) + "\nnothing\n```\n"
        self.assertEqual(self.check("<!-- doc-example: skip needs ../shared/data -->\n" + markdown),
                         (0, []))
        code, lines = self.check("<!-- doc-example: skip -->\n" + markdown)
        self.assertEqual(code, 1)
        self.assertIn("skip needs a reason", lines[0])

    def test_a_failing_command_fails(self):
        code, lines = self.check("```console\n$ infergrid simulate --model=no-such-model\n```\n")
        self.assertEqual(code, 1)
        self.assertRegex(lines[0], r"^example.md:2: exit code 2: ")

    def test_an_example_outside_a_console_block_is_refused(self):
        code, lines = self.check(self.block(self.output, fence=""))
        self.assertEqual(code, 1)
        self.assertIn("must be a ```console block", lines[0])

    def test_commands_in_sh_blocks_name_only_flags_their_command_has(self):
        good = ("```sh\ninfergrid simulate --rate=10 \\\n    --max_num_seqs=8   # a comment --not-a-flag\n"
                "infergrid memory --model=M [--context=8192]\n"
                "                 [--batch=1]\n"
                "B=build/sim/infergrid; $B roofline --phase=decode\n```\n")
        self.assertEqual(self.check(good), (0, []))
        for line, wrong, command in [
                ("infergrid simulate --rate=10 \\\n    --max-num-seqz=8", "--max-num-seqz", "simulate"),
                ("infergrid memory --model=M\n                 [--bacth=1]", "--bacth", "memory"),
                ("B=build/sim/infergrid; $B roofline --phaze=decode", "--phaze", "roofline"),
                ("echo 'gemm 1 1 1 bf16' | infergrid kernels --gpus=h100-sxm", "--gpus", "kernels")]:
            code, lines = self.check(f"Text.\n\n```sh\n{line}\n```\n")
            self.assertEqual((code, lines), (1, [f"example.md:4: `infergrid {command}` has no {wrong}"]))
        code, lines = self.check("```sh\ninfergrid simulatte --rate=1\n```\n")
        self.assertEqual((code, lines), (1, ["example.md:2: `infergrid simulatte`: no such command"]))

    def test_an_echo_feeds_the_command_its_stdin(self):
        command = '$ echo "gemm 1024 4096 4096 bf16" | infergrid kernels --gpu=h100-sxm'
        done = subprocess.run([BINARY, "kernels", "--gpu=h100-sxm"], input="gemm 1024 4096 4096 bf16\n",
                              capture_output=True, text=True, check=True)
        printed = done.stdout.strip()
        self.assertEqual(self.check(f"```console\n{command}\n{printed}\n```\n"), (0, []))
        time = printed.split()[5]
        moved = printed.replace(time, f"{float(time) * 0.9:.2f}", 1)
        code, lines = self.check(f"```console\n{command}\n{moved}\n```\n")
        self.assertEqual(code, 1)
        self.assertIn(f"printed {time} ", lines[0])

    def test_the_readme_example_fails_when_one_of_its_numbers_moves(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        block = re.search(r"```console\n(\$ [^\n]*)\n(.*?)\n```", readme, re.S)
        command, output = block.group(1), block.group(2)
        self.assertEqual(self.check(f"```console\n{command}\n{output}\n```\n"), (0, []))
        number = re.search(r"(?<![\w.])\d+\.\d+(?!\w)", output)  # the first decimal number
        moved = f"{float(number.group(0)) * 1.1:.2f}"
        drifted = output[:number.start()] + moved + output[number.end():]
        code, lines = self.check(f"```console\n{command}\n{drifted}\n```\n")
        self.assertEqual(code, 1)
        self.assertEqual(len(lines), 1)
        self.assertIn(f"documented {moved}, printed {number.group(0)}", lines[0])


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main()
