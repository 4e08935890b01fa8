#!/usr/bin/env python3
"""Writes the demand files of examples/demand/ (requests per round, one round a minute).

Deterministic: no clock, no system randomness; the jitter is a fixed 32-bit LCG
(Numerical Recipes' constants) seeded per file, and every value is rounded to one decimal,
so the files are the same bytes on every machine. Run it from anywhere:

    python3 examples/demand/make.py

working-week.csv  7 days x 1440 rounds: quiet nights (about 150 requests), a morning ramp
                  from 07:00, a lunch peak 12:00-13:30 (about 2,400), an afternoon plateau,
                  an evening decline; Saturday and Sunday at a third of a weekday.
flash-crowd.csv   240 rounds: 800 steady, then at round 100 a crowd of 3,200 more that
                  decays by half every 12 rounds.
slow-ramp.csv     1440 rounds: from 300 to 3,000 in a straight line over the day.
"""

import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class Lcg:
    """x' = 1664525 x + 1013904223 mod 2^32; unit() in [0, 1)."""

    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFF

    def unit(self):
        self.x = (1664525 * self.x + 1013904223) & 0xFFFFFFFF
        return self.x / 2**32


def smooth(x):
    """0 below 0, 1 above 1, a cosine ramp between."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    return (1 - math.cos(math.pi * x)) / 2


def weekday_minute(m):
    """Requests at minute m (0-1439) of a working day."""
    h = m / 60
    night = 150.0
    morning = 1300.0 * smooth((h - 7) / 2)  # 07:00-09:00 ramp to the plateau
    lunch = 1000.0 * smooth((h - 11.5) / 0.5) * (1 - smooth((h - 13.5) / 0.5))
    evening = 1300.0 * smooth((h - 17) / 3)  # 17:00-20:00 decline
    return night + morning + lunch - evening


def write(name, values):
    path = os.path.join(HERE, name)
    with open(path, "w", newline="\n") as f:
        f.write("round,demand\n")
        for t, v in enumerate(values):
            f.write(f"{t},{round(v, 1)}\n")


def main():
    rng = Lcg(1)
    week = []
    for day in range(7):
        scale = 1.0 if day < 5 else 1 / 3
        for m in range(1440):
            jitter = 1 + 0.1 * (rng.unit() - 0.5)
            week.append(weekday_minute(m) * scale * jitter)
    write("working-week.csv", week)

    rng = Lcg(2)
    crowd = []
    for t in range(240):
        extra = 3200.0 * 0.5 ** ((t - 100) / 12) if t >= 100 else 0.0
        crowd.append((800.0 + extra) * (1 + 0.05 * (rng.unit() - 0.5)))
    write("flash-crowd.csv", crowd)

    rng = Lcg(3)
    ramp = [
        (300.0 + 2700.0 * t / 1439) * (1 + 0.05 * (rng.unit() - 0.5)) for t in range(1440)
    ]
    write("slow-ramp.csv", ramp)


if __name__ == "__main__":
    main()
