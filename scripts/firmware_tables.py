#!/usr/bin/env python3
"""Writes or checks firmware/README.md's measured figures: the blocks between
`<!-- measured by scripts/SCRIPT: NAME … -->` and `<!-- end -->`.

    python3 scripts/firmware_tables.py qemu WORK [--update]     # from scripts/firmware-test.sh
    python3 scripts/firmware_tables.py boards SIZES [--update]  # from scripts/boards.sh build

`qemu` reads what scripts/firmware-test.sh measured into WORK (its firmware/target/firmware-test
directory): `measured.tsv` (one line per image: `size BOARD TEXT RODATA DATA BSS FLASH PEAK`
for a lesson image, `paths BOARD FLASH STATIC PEAK` for a `paths` build) and each board's notes
(`BOARD.1.err`: `# work LESSON: N instructions, stack S bytes`). `boards` reads the sizes
scripts/boards.sh measured (`BOARD TEXT RODATA DATA BSS FLASH FLASH_MAX STATIC RAM_MAX STACK`).
Each block is rendered from them: the QEMU boards' sizes, their peak stack and instructions
per lesson, the suite's time at the real boards' clocks, the notes of one run, the real boards'
sizes.

Without --update a block that differs from what was measured is a failure (a unified diff
names it, exit 1): a figure in the README is what the last run of its script measured. With
--update the blocks are rewritten; read the diff before committing it, since a changed figure
needs a reason (a commit that changed the code, or another toolchain: the rustc version is in
the sizes' caption). The scripts build with the checkout's and cargo's paths remapped
(scripts/path-remap.sh): a panic location's path is in the image, and its length moved the
sizes, the alignment memcpy meets and the instructions a lesson takes from one checkout to the
next. And the firmware workspaces reach capsim-core through links inside their own folders
(firmware/capsim-core, firmware/boards/capsim-core): cargo hashes a path dependency outside
the workspace by its absolute path into every symbol's name, and the names' order moved the
functions' layout (the micro:bit v2's .text by 8 bytes between two clones).
"""
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "firmware", "README.md")

QEMU_BOARDS = ["lm3s6965evb", "mps2-an386", "microbit", "riscv-virt"]
LESSONS = ["group", "group-sweep", "group-ledger", "consumers", "bulkhead"]
FLASH_BUDGET = 128 * 1024
FLASH_ROOM = FLASH_BUDGET * 9 // 10
RAM_BUDGET = 16 * 1024
# The real boards run the code counted on a QEMU board with the same core (README, "How long
# the suite takes"): (column, QEMU board, clock in Hz).
CLOCKS = [
    ("micro:bit v2, 64 MHz", "mps2-an386", 64_000_000),
    ("Pico, 125 MHz", "microbit", 125_000_000),
    ("(micro:bit v1, 16 MHz)", "microbit", 16_000_000),
]
CHIPS = {
    "microbit-v2": ("micro:bit v2", "nRF52833, 512 KiB flash, 128 KiB RAM"),
    "pico": ("Pico", "RP2040, 2 MiB flash, 264 KiB RAM (256 KiB used)"),
}


def n(value):
    return f"{value:,}"


def rustc():
    try:
        return subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "rustc (unknown version)"


def notes(work, board):
    """{lesson: (instructions, stack)} and the peak, from a board's first run's notes."""
    work_notes, peak = {}, None
    with open(os.path.join(work, f"{board}.1.err"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^# work (\S+): (\d+) instructions, stack (\d+) bytes$", line.rstrip("\n"))
            if m:
                work_notes[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            m = re.match(r"^# stack [^:]*: peak (\d+) bytes", line)
            if m:
                peak = int(m.group(1))
    missing = [lesson for lesson in LESSONS if lesson not in work_notes]
    if missing or peak is None:
        sys.exit(f"firmware_tables: {board}.1.err lacks the notes of {missing or 'its peak stack'}")
    return work_notes, peak


def seconds(t):
    return f"{t:.2f} s" if t < 1 else f"{t:.1f} s"


def qemu_blocks(work):
    sizes, paths = {}, {}
    with open(os.path.join(work, "measured.tsv"), encoding="utf-8") as f:
        for line in f:
            kind, board, *values = line.split()
            (sizes if kind == "size" else paths)[board] = [int(v) for v in values]
    if sorted(sizes) != sorted(QEMU_BOARDS):
        sys.exit(f"firmware_tables: measured.tsv has the sizes of {sorted(sizes)}, not {QEMU_BOARDS}")
    work_notes = {board: notes(work, board) for board in QEMU_BOARDS}
    blocks = {}

    rows = [
        "| board | .text | .rodata | .data | .bss | flash | peak stack | static + peak |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for board in QEMU_BOARDS:
        text, rodata, data, bss, flash, peak = sizes[board]
        ram = data + bss + peak
        flash_ok = "✓" if flash <= FLASH_ROOM else "✗ over 90 %"
        ram_ok = "✓" if ram <= RAM_BUDGET else "✗"
        rows.append(
            f"| {board} | {n(text)} | {n(rodata)} | {n(data)} | {n(bss)} | "
            f"**{n(flash)}** ({100 * flash / FLASH_BUDGET:.1f} % {flash_ok}) | {n(peak)} | "
            f"**{n(ram)}** (≤ {n(RAM_BUDGET)} {ram_ok}) |"
        )
    rows += [
        "",
        f"(flash: the percentages of {n(FLASH_BUDGET)}, whose 90 % is the budget, {n(FLASH_ROOM)} bytes;",
        f"built by {rustc()}, the sources' paths remapped by scripts/path-remap.sh and capsim-core",
        "reached through firmware/capsim-core, a link inside the workspace: the figures",
        "do not depend on where the repository is checked out.)",
        "",
        "The `paths` builds, held to the board's own RAM only:",
        "",
        "| board | flash | static RAM | peak stack |",
        "| --- | ---: | ---: | ---: |",
    ]
    for board in QEMU_BOARDS:
        if board in paths:
            flash, static, peak = paths[board]
            rows.append(f"| {board} | {n(flash)} | {n(static)} | {n(peak)} |")
    blocks["qemu-sizes"] = rows

    def per_lesson(index):
        table = [
            "| lesson | " + " | ".join(QEMU_BOARDS) + " |",
            "| --- |" + " ---: |" * len(QEMU_BOARDS),
        ]
        for lesson in LESSONS:
            table.append(
                f"| {lesson} | " + " | ".join(n(work_notes[b][0][lesson][index]) for b in QEMU_BOARDS) + " |"
            )
        return table

    stacks = per_lesson(1)
    stacks.append("| **peak** | " + " | ".join(f"**{n(work_notes[b][1])}**" for b in QEMU_BOARDS) + " |")
    blocks["qemu-stacks"] = stacks

    instructions = per_lesson(0)
    ratios = [work_notes["microbit"][0][l][0] / work_notes["lm3s6965evb"][0][l][0] for l in LESSONS]
    instructions += [
        "",
        f"The Cortex-M0 (microbit) takes {min(ratios):.1f} to {max(ratios):.1f} times the instructions of",
        "the Cortex-M3 (lm3s6965evb).",
    ]
    blocks["qemu-work"] = instructions

    time = [
        "| lesson | " + " | ".join(column for column, _, _ in CLOCKS) + " |",
        "| --- |" + " ---: |" * len(CLOCKS),
    ]
    for lesson in LESSONS:
        time.append(
            f"| {lesson} | "
            + " | ".join(seconds(work_notes[b][0][lesson][0] / hz) for _, b, hz in CLOCKS)
            + " |"
        )
    cells = []
    for k, (_, board, hz) in enumerate(CLOCKS):
        total = sum(work_notes[board][0][l][0] for l in LESSONS)
        cell = seconds(total / hz)
        if k < 2:
            cell = f"**{cell}** ({n(total)} instructions)"
        cells.append(cell)
    time.append("| **suite** | " + " | ".join(cells) + " |")
    blocks["suite-time"] = time

    with open(os.path.join(work, "lm3s6965evb.1.err"), encoding="utf-8") as f:
        lm3s = [line.rstrip("\n") for line in f if line.startswith("# ")]
    blocks["qemu-notes"] = ["```text"] + lm3s + ["```"]
    return blocks


def boards_blocks(sizes_path):
    sizes = {}
    with open(sizes_path, encoding="utf-8") as f:
        for line in f:
            board, *values = line.split()
            sizes[board] = [int(v) for v in values]
    rows = [
        "| board | chip | .text | .rodata | .data | .bss | flash | static RAM |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for board in ["microbit-v2", "pico", "pico-en"]:
        if board == "pico-en" and sizes.get("pico-en") == sizes.get("pico"):
            continue
        text, rodata, data, bss, flash, flash_max, static, ram_max, stack = sizes[board]
        name, chip = CHIPS.get(board, CHIPS["pico"])
        if board == "pico-en":
            name = "`pico-en`"
        elif board == "pico" and sizes.get("pico-en") == sizes.get("pico"):
            name = "Pico (and `pico-en`)"
        flash_ok = "✓" if flash <= flash_max else "✗"
        ram_ok = "✓" if static + stack <= ram_max else "✗"
        rows.append(
            f"| {name} | {chip} | {n(text)} | {n(rodata)} | {n(data)} | {n(bss)} | "
            f"**{n(flash)}** ({100 * flash / flash_max:.1f} % of {n(flash_max)} {flash_ok}) | "
            f"**{n(static)}** (+ {n(stack)} stack ≤ {n(ram_max)} {ram_ok}) |"
        )
    rows += [
        "",
        f"(built by {rustc()}, the sources' paths remapped by scripts/path-remap.sh and",
        "capsim-core reached through firmware/boards/capsim-core, a link inside the workspace:",
        "the figures do not depend on where the repository is checked out.)",
    ]
    return {"board-sizes": rows}


def main(argv):
    update = "--update" in argv
    args = [a for a in argv if a != "--update"]
    if len(args) != 2 or args[0] not in ("qemu", "boards"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    kind, source = args
    blocks = qemu_blocks(source) if kind == "qemu" else boards_blocks(source)
    script = "scripts/firmware-test.sh" if kind == "qemu" else "scripts/boards.sh"
    with open(README, encoding="utf-8") as f:
        lines = f.read().split("\n")
    status, out, i, seen = 0, [], 0, set()
    while i < len(lines):
        m = re.match(r"^<!-- measured by (\S+): (\S+)", lines[i])
        out.append(lines[i])
        i += 1
        if not m or m.group(1) != script:
            continue
        name = m.group(2)
        if name not in blocks:
            print(f"firmware/README.md: {script} measures no block named {name}")
            status = 1
            continue
        seen.add(name)
        end = i
        while end < len(lines) and lines[end] != "<!-- end -->":
            end += 1
        if end == len(lines):
            print(f"firmware/README.md: the block {name} has no <!-- end -->")
            return 1
        written, measured = lines[i:end], blocks[name]
        if written != measured:
            if update:
                print(f"firmware/README.md: {name} rewritten with what {script} measured")
            else:
                print(f"firmware/README.md: {name} is not what {script} measured"
                      f" (bash {script}{' build' if kind == 'boards' else ''} --update rewrites it):")
                for line in difflib.unified_diff(written, measured, "README", "measured", lineterm="", n=0):
                    print("        " + line)
                status = 1
        out.extend(measured if update else written)
        i = end
    for name in sorted(set(blocks) - seen):
        print(f"firmware/README.md: no block <!-- measured by {script}: {name} --> for what it measures")
        status = 1
    if update:
        with open(README, "w", encoding="utf-8") as f:
            f.write("\n".join(out))
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
