"""The Python package against the command line on the lesson's 1,800-run grid, side by side.

    python python/bench.py [--cli target/python/capsim] [--repeat 21] [--callgrind]

Each round times, one after the other, ``capsim autoscale --threshold 2,3,5 --cooldown 0,3,8
--seed 1..=200 --format json`` (a process, its JSON Lines to /dev/null) and
``capsim.grid("autoscale", threshold=[2, 3, 5], cooldown=[0, 3, 8], seed="1..=200")`` into a
pandas DataFrame (in this interpreter, capsim and pandas imported); then the same with
``--threads 1`` / ``threads=1``. It prints the medians of the wall time and of the CPU time
(every thread's; the command line's process as its parent counts it) and the ratios
package / command line.
With ``--callgrind`` it counts instructions instead (valgrind's callgrind, one thread, the
reliable figure on a noisy machine): the command line's whole process, and the package's
grid as the instructions of a Python process that runs it less those of one that only imports
capsim and pandas and runs a one-run grid.
A benchmark, not a test: the figure goes in docs/performance.md.
"""

import argparse
import re
import resource
import sys
import pathlib
import statistics
import subprocess
import time

import capsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
GRID = dict(threshold=[2, 3, 5], cooldown=[0, 3, 8], seed="1..=200")
FLAGS = ["--threshold", "2,3,5", "--cooldown", "0,3,8", "--seed", "1..=200"]


def instructions(command):
    """The instructions valgrind's callgrind counts for `command` (every thread's)."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                          capture_output=True, text=True, check=True)
    return int(re.search(r"refs:\s+([\d,]+)", done.stderr).group(1).replace(",", ""))


def callgrind(cli):
    setup = "import capsim, pandas; capsim.grid('autoscale', threshold=2)"
    grid = "capsim.grid('autoscale', threads=1, **%r)" % GRID
    base = instructions([sys.executable, "-c", setup])
    with_grid = instructions([sys.executable, "-c", f"{setup}; {grid}"])
    command_line = instructions([cli, "autoscale", *FLAGS, "--format", "json", "--threads", "1"])
    package = with_grid - base
    print(f"instructions: command line {command_line:,}, capsim.grid -> DataFrame {package:,}, "
          f"ratio {package / command_line:4.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=str(ROOT / "target" / "python" / "capsim"))
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--callgrind", action="store_true")
    args = parser.parse_args()
    if args.callgrind:
        return callgrind(args.cli)
    for threads in (0, 1):
        cli = [args.cli, "autoscale", *FLAGS, "--format", "json", "--threads", str(threads)]
        py, sh, py_cpu, sh_cpu = [], [], [], []
        for i in range(args.repeat + 2):
            t, u = time.perf_counter(), time.process_time()
            df = capsim.grid("autoscale", threads=threads, **GRID)
            a, a_cpu = time.perf_counter() - t, time.process_time() - u
            t, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(cli, stdout=subprocess.DEVNULL, check=True)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            b = time.perf_counter() - t
            b_cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
            if i >= 2:  # two warm-up rounds
                py.append(a)
                sh.append(b)
                py_cpu.append(a_cpu)
                sh_cpu.append(b_cpu)
        assert df.shape[0] == 1800
        ms = lambda v: statistics.median(v) * 1e3  # noqa: E731
        label = "all cores" if threads == 0 else "1 thread"
        print(f"{label:9}  wall: command line {ms(sh):6.1f} ms, capsim.grid -> DataFrame {ms(py):6.1f} ms, "
              f"ratio {ms(py) / ms(sh):4.2f}x;  CPU: {ms(sh_cpu):6.1f} ms, {ms(py_cpu):6.1f} ms, "
              f"ratio {ms(py_cpu) / ms(sh_cpu):4.2f}x  (medians of {args.repeat})")


if __name__ == "__main__":
    main()
