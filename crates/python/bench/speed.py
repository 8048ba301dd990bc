"""The Python package's speed targets, measured against the release binary.

    cargo build --release -p dctc
    (cd crates/python && maturin develop --release)
    python crates/python/bench/speed.py --rounds 3

Each round, interleaved: one run of the demo scenario by the binary (`dctc run`), the
4-point sweep of it (`workload[0].load` 0.4, 0.6 x `seed` 1, 2) by `dctc sweep --jobs 2`
and by `dctc.sweep(backend="local", jobs=2)`, and `dctc.run()` of the demo scenario in this
process. Wall time and CPU time (user + system: of the child for the binary, of this process
for the package) of each, and the load average before each round. Prints one Markdown table
row per measurement and the ratios of the issue's targets from the medians:

- sweep wall / (N x single-run wall) <= 0.55 for `dctc sweep --jobs 2` and `dctc.sweep`;
- `dctc.run()` CPU / `dctc run` CPU < 1.05 (the run takes a second or more).

The wall-time ratios mean something only on an otherwise idle machine with 2 free cores.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import dctc

REPO = Path(__file__).resolve().parents[3]
SCENARIO = str(REPO / "scenarios" / "demo.toml")
GRID = {"workload[0].load": [0.4, 0.6], "seed": range(1, 3)}
CLI_GRID = ["--set", "workload[0].load=0.4,0.6", "--set", "seed=1..2"]
POINTS = 4


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def own_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed_binary(args):
    c, t = children_cpu(), time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, children_cpu() - c


def timed_call(f):
    c, t = own_cpu(), time.perf_counter()
    f()
    return time.perf_counter() - t, own_cpu() - c


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=str(REPO / "target" / "release" / "dctc"))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dctc-speed-"))
    m = {k: [] for k in ["run", "sweep", "py_sweep", "py_run"]}
    print("| round | load avg | measurement | wall s | CPU s |")
    print("|---|---|---|---|---|")
    try:
        for k in range(1, args.rounds + 1):
            load = "%.1f %.1f %.1f" % os.getloadavg()
            out = work / "run"
            m["run"].append(
                timed_binary([args.bin, "run", SCENARIO, "--quiet", "--force", "--out", str(out)])
            )
            shutil.rmtree(work / "sweep", ignore_errors=True)
            m["sweep"].append(
                timed_binary(
                    [args.bin, "sweep", SCENARIO, *CLI_GRID, "--jobs", "2", "--quiet",
                     "--out", str(work / "sweep")]
                )
            )
            m["py_sweep"].append(timed_call(lambda: dctc.sweep(SCENARIO, grid=GRID, jobs=2)))
            m["py_run"].append(timed_call(lambda: dctc.run(SCENARIO)))
            for name, label in [
                ("run", "`dctc run` (one point)"),
                ("sweep", "`dctc sweep --jobs 2` (4 points)"),
                ("py_sweep", '`dctc.sweep(backend="local", jobs=2)` (4 points)'),
                ("py_run", "`dctc.run()` (one point)"),
            ]:
                wall, cpu = m[name][-1]
                print(f"| {k} | {load} | {label} | {wall:.2f} | {cpu:.2f} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in m.items()}
    single = med["run"][0]
    print()
    print(f"median single run: {single:.2f} s wall, {med['run'][1]:.2f} s CPU")
    for k, label in [("sweep", "dctc sweep --jobs 2"), ("py_sweep", "dctc.sweep(jobs=2)")]:
        print(f"{label}: {med[k][0]:.2f} s wall = {med[k][0] / (POINTS * single):.3f} x N x "
              f"single-run wall (target <= 0.55); CPU {med[k][1]:.2f} s")
    print(f"dctc.run(): CPU {med['py_run'][1]:.2f} s = {med['py_run'][1] / med['run'][1]:.3f} x "
          f"the binary's (target < 1.05); wall {med['py_run'][0]:.2f} s = "
          f"{med['py_run'][0] / single:.3f} x")


if __name__ == "__main__":
    main()
