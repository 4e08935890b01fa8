#!/usr/bin/env python3
"""Converts an ELF image to UF2, the RP2040 boot ROM's drag-and-drop format.

    python3 scripts/uf2.py IN.elf OUT.uf2 [--family 0xe48bff56] [--check IMAGE.bin BASE]

Each 512-byte UF2 block carries 256 bytes of one flash page: the bytes of the ELF's PT_LOAD
segments (at their physical addresses, p_paddr, so `.data` goes to its load address in
flash), the rest of the page zero. Pages come in address order. The format is Microsoft's
UF2 specification (github.com/microsoft/uf2): magics 0x0A324655, 0x9E5D5157, 0x0AB16F30,
flag 0x2000 (family ID present); RP2040's family ID is 0xe48bff56.

With --check, it instead decodes OUT.uf2 and checks it against IMAGE.bin (a flat image of
the ELF made by another tool, e.g. `llvm-objcopy -O binary`, that starts at address BASE):
every block's magics, flags, family, numbering and size, and the payload bytes. Exits 1 with
one line on stderr when they differ.
"""

import struct
import sys

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY = 0xE48BFF56
PAGE = 256
BLOCK = 512
PT_LOAD = 1


def load_segments(elf):
    """Returns [(physical address, bytes)] of the PT_LOAD segments with file bytes."""
    if elf[:4] != b"\x7fELF" or elf[4] != 1 or elf[5] != 1:
        raise ValueError("not a 32-bit little-endian ELF")
    (phoff,) = struct.unpack_from("<I", elf, 28)
    phentsize, phnum = struct.unpack_from("<HH", elf, 42)
    segments = []
    for i in range(phnum):
        p_type, p_offset, _vaddr, p_paddr, p_filesz, _memsz, _flags, _align = struct.unpack_from(
            "<8I", elf, phoff + i * phentsize
        )
        if p_type == PT_LOAD and p_filesz > 0:
            segments.append((p_paddr, elf[p_offset : p_offset + p_filesz]))
    return segments


def to_uf2(segments, family):
    """Returns the UF2 file of the segments, one block per 256-byte page they touch."""
    pages = {}
    for addr, data in segments:
        for i, byte in enumerate(data):
            a = addr + i
            page = pages.setdefault(a - a % PAGE, bytearray(PAGE))
            page[a % PAGE] = byte
    blocks = []
    for n, base in enumerate(sorted(pages)):
        header = struct.pack(
            "<8I", MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID, base, PAGE, n, len(pages), family
        )
        payload = bytes(pages[base]).ljust(476, b"\0")
        blocks.append(header + payload + struct.pack("<I", MAGIC_END))
    return b"".join(blocks)


def check(uf2, image, base, family):
    """Returns None when `uf2` carries exactly `image` (padded to whole pages) from `base`."""
    if len(uf2) % BLOCK != 0 or not uf2:
        return f"{len(uf2)} bytes is not a whole number of {BLOCK}-byte blocks"
    count = len(uf2) // BLOCK
    expected = image + bytes(-len(image) % PAGE)
    if count != len(expected) // PAGE:
        return f"{count} blocks for an image of {len(expected) // PAGE} pages"
    for n in range(count):
        block = uf2[n * BLOCK : (n + 1) * BLOCK]
        m0, m1, flags, addr, size, number, total, fam = struct.unpack_from("<8I", block)
        (end,) = struct.unpack_from("<I", block, BLOCK - 4)
        if (m0, m1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            return f"block {n}: bad magic"
        if flags != FLAG_FAMILY_ID or fam != family:
            return f"block {n}: flags {flags:#x}, family {fam:#x}"
        if (size, number, total) != (PAGE, n, count):
            return f"block {n}: size {size}, number {number}, total {total}"
        if addr != base + n * PAGE:
            return f"block {n}: address {addr:#x}, expected {base + n * PAGE:#x}"
        if block[32 : 32 + PAGE] != expected[n * PAGE : (n + 1) * PAGE]:
            return f"block {n}: payload differs from the image at {addr:#x}"
    return None


def main(argv):
    args = argv[1:]
    family = RP2040_FAMILY
    if "--family" in args:
        i = args.index("--family")
        family = int(args[i + 1], 0)
        del args[i : i + 2]
    if len(args) == 5 and args[2] == "--check":
        with open(args[1], "rb") as f:
            uf2 = f.read()
        with open(args[3], "rb") as f:
            image = f.read()
        problem = check(uf2, image, int(args[4], 0), family)
        if problem:
            print(f"error: {args[1]}: {problem}", file=sys.stderr)
            return 1
        return 0
    if len(args) != 2:
        print("error: usage: uf2.py IN.elf OUT.uf2 [--family ID] [--check IMAGE.bin BASE]", file=sys.stderr)
        return 2
    with open(args[0], "rb") as f:
        elf = f.read()
    try:
        segments = load_segments(elf)
    except ValueError as e:
        print(f"error: {args[0]}: {e}", file=sys.stderr)
        return 2
    with open(args[1], "wb") as f:
        f.write(to_uf2(segments, family))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
