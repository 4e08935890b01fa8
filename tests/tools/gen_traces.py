#!/usr/bin/env python3
"""Generate the golden per-round traces of the lesson runs from the reference programs.

Like ``gen_vectors.py``, no reference code is stored here: the programs are read from
``../shared/reference`` relative to the repository root (``--reference DIR`` to override),
patched in a temporary directory and run with ``node``. Each patch is an exact text edit
that must match once: a line that notes the counters at the start of a round, a line at
its end that records the round's row, and a harness that runs one lesson run and prints the
rows as CSV. The model code itself is untouched, so the rows are what the lesson computes.

The columns are those of ``capsim trace <model> --format csv``:

* autoscale (``olcum-agi/grup.mjs``, threshold 2 / cooldown 0 and 5 / 8): round, demand as
  ``String(talep(t))``, required ``gerekli(t)``, size ``grup.length``, ready (``hazir``),
  booting (not ``hazir``), broken (``bozuk``), launched (``baslatilan`` this round),
  replaced (``degistirme`` this round), removed (instances scale-in spliced), then the
  lifecycle's nine states. The lesson knows two of them: a booting instance is ``Pending``
  and a ready one ``InService`` (specs/lifecycle.md); the other seven are 0.
* consumers (``rakip/tuketici.mjs``, N = 4, S = 2): round (``tur``), applied
  (``uygulanan`` this round), reordered (``bozulan`` grew by), busy consumers (non-null at
  the round's end), queue left (``olaylar.length - sira``).
* bulkhead (``bolme/kosum.mjs``, 24/8, slowdown): round, busy slots after the round's
  releases (what ``doluTur`` adds), served and dropped per stream this round, then the
  tracking and event pools' busy slots at that moment.

Writes tests/golden/trace-*.csv. Run from the repository root:

    python3 tests/tools/gen_traces.py [--reference DIR]
"""

import argparse
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

AUTOSCALE_HEADER = (
    "round,demand,required,size,ready,booting,broken,launched,replaced,removed,"
    "pending,pending_wait,in_service,standby,protected,removing,removing_wait,stopped,restarting"
)
CONSUMERS_HEADER = "round,applied,reordered,busy_consumers,queue_left"
BULKHEAD_HEADER = (
    "round,busy,tracking_served,tracking_dropped,event_served,event_dropped,"
    "tracking_busy,event_busy"
)

# Collects rows; printed by the harness.
PRELUDE = "const __rows = [];\nconst __row = (cells) => __rows.push(cells.join(','));\n"


def edit(src, old, new):
    """Replaces the one occurrence of `old` in `src` (fails if there is not exactly one)."""
    n = src.count(old)
    if n != 1:
        sys.exit(f"gen_traces: pattern found {n} times, expected once: {old!r}")
    return src.replace(old, new)


def patch_group(src, threshold, cooldown):
    src = edit(src, "    const g = gerekli(t);\n",
               "    const g = gerekli(t);\n"
               "    const __b = m.baslatilan, __d = m.degistirme; let __r = 0;\n")
    src = edit(src, "for (let i = 0; i < hazir - g - 1; i++) grup.splice(",
               "__r += hazir - g - 1; for (let i = 0; i < hazir - g - 1; i++) grup.splice(")
    src = edit(src, "    if (grup.filter((o) => o.hazir).length < g) m.alti++;\n",
               "    if (grup.filter((o) => o.hazir).length < g) m.alti++;\n"
               "    { const ready = grup.filter((o) => o.hazir).length;\n"
               "      const booting = grup.length - ready;\n"
               "      __row([t, String(talep(t)), g, grup.length, ready, booting,\n"
               "        grup.filter((o) => o.bozuk).length, m.baslatilan - __b,\n"
               "        m.degistirme - __d, __r, booting, 0, ready, 0, 0, 0, 0, 0, 0]); }\n")
    src = edit(src, "if (import.meta.url === `file://${process.argv[1]}`) {", "if (false) {")
    return (PRELUDE + src +
            f"\nkosum({{ esik: {threshold}, soguma: {cooldown} }});\n"
            f"console.log({AUTOSCALE_HEADER!r});\n"
            "for (const r of __rows) console.log(r);\n")


def patch_consumers(src, n, s):
    src = edit(src, "  while (uygulanan < olaylar.length) {\n",
               "  while (uygulanan < olaylar.length) {\n"
               "    const __u = uygulanan, __z = bozulan.size;\n")
    src = edit(src, "    tur += 1;\n",
               "    __row([tur, uygulanan - __u, bozulan.size - __z,\n"
               "      tuketici.filter((c) => c !== null).length, olaylar.length - sira]);\n"
               "    tur += 1;\n")
    cut = src.index("const olaylar = isYuku();")
    return (PRELUDE + src[:cut] +
            f"kosum(isYuku(), {n}, {s});\n"
            f"console.log({CONSUMERS_HEADER!r});\n"
            "for (const r of __rows) console.log(r);\n")


def patch_bulkhead(src, split, mode):
    src = edit(src, "    c.doluTur += Object.values(yer).reduce((a, x) => a + x.length, 0);\n",
               "    c.doluTur += Object.values(yer).reduce((a, x) => a + x.length, 0);\n"
               "    const __c = { ...c };\n"
               "    const __busy = Object.values(yer).reduce((a, x) => a + x.length, 0);\n"
               "    const __pools = Object.keys(havuz).map((h) => yer[h].length);\n")
    src = edit(src, "    }\n  }\n  return c;\n",
               "    }\n"
               "    __row([t, __busy, c.takipYanit - __c.takipYanit, c.takipDusen - __c.takipDusen,\n"
               "      c.olayYanit - __c.olayYanit, c.olayDusen - __c.olayDusen, ...__pools]);\n"
               "  }\n  return c;\n")
    cut = src.index("  return c;\n}\n") + len("  return c;\n}\n")
    return (PRELUDE + src[:cut] +
            f"kosum({{ bolme: {split}, kip: {mode!r} }});\n"
            f"console.log({BULKHEAD_HEADER!r});\n"
            "for (const r of __rows) console.log(r);\n")


def run(ref, rel, patched, tmp, name):
    with open(os.path.join(ref, rel), encoding="utf-8") as f:
        src = f.read()
    path = os.path.join(tmp, name + ".mjs")
    with open(path, "w", encoding="utf-8") as f:
        f.write(patched(src))
    out = subprocess.run(["node", path], check=True, capture_output=True, text=True).stdout
    dest = os.path.join(REPO, "tests", "golden", name + ".csv")
    with open(dest, "w", encoding="utf-8") as f:
        f.write(out)
    print(f"wrote {os.path.relpath(dest, REPO)}: {out.count(chr(10)) - 1} rounds")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference", default=os.path.join(REPO, "..", "shared", "reference"))
    ref = ap.parse_args().reference
    if not os.path.isdir(ref):
        ref = "/work/shared/reference"
    with tempfile.TemporaryDirectory() as tmp:
        group = os.path.join("olcum-agi", "grup.mjs")
        run(ref, group, lambda s: patch_group(s, 2, 0), tmp, "trace-autoscale-2-0")
        run(ref, group, lambda s: patch_group(s, 5, 8), tmp, "trace-autoscale-5-8")
        run(ref, os.path.join("rakip", "tuketici.mjs"), lambda s: patch_consumers(s, 4, 2),
            tmp, "trace-consumers-4-2")
        run(ref, os.path.join("bolme", "kosum.mjs"),
            lambda s: patch_bulkhead(s, 24, "yavaslama"), tmp, "trace-bulkhead-24-slowdown")


if __name__ == "__main__":
    main()
