#!/usr/bin/env python3
"""Seeded, deterministic mutations of the replay fixtures, for tests/host/pcviz-fuzz.sh.

Usage: trace-mutate.py V6.DAT V7-ZSTD.DAT OUTDIR [SEED...]

Writes OUTDIR/SEED.dat for every case (or the SEEDs given) and lists them in
OUTDIR/cases, one "SEED CLASS DESCRIPTION" a line.  A case is a function of
its seed alone: the same seed always gives the same file.

V6.DAT is trace-cmd's file format 6 (uncompressed), walked section by
section so that format texts, header values and events can be edited where
they are; V7-ZSTD.DAT is format 7 with compressed sections, only cut and
flipped.
"""
import random
import struct
import sys


class V6:
    """Where things are in a format 6 trace.dat (see trace-cmd.dat(5))."""

    def __init__(self, data):
        self.data = data
        p = data.index(b"\0", 10) + 1
        self.version = 10
        self.endian, self.long_size, self.page_size = p, p + 1, p + 2
        p += 6
        self.header_texts = []  # (size field, text start, text length)
        for name in (b"header_page\0", b"header_event\0"):
            assert data[p:p + len(name)] == name
            p += len(name)
            n = self.u64(p)
            self.header_texts.append((p, p + 8, n))
            p += 8 + n
        self.ftrace_count = p
        p += 4
        for _ in range(self.u32(self.ftrace_count)):
            p += 8 + self.u64(p)
        self.systems_count = p
        p += 4
        self.events = []  # dict per event format
        for _ in range(self.u32(self.systems_count)):
            p = data.index(b"\0", p) + 1
            self.events_count = p
            p += 4
            for _ in range(self.u32(self.events_count)):
                n = self.u64(p)
                self.events.append(self.event(p, p + 8, n))
                p += 8 + n
        self.kallsyms_size = p
        p += 4 + self.u32(p)
        self.printk_size = p
        p += 4 + self.u32(p)
        self.cmdlines_size = p
        p += 8 + self.u64(p)
        self.cpus = p
        p += 4
        assert data[p:p + 10] == b"options  \0"
        p += 10
        self.options = []  # (id field, size field)
        while self.u16(p):
            self.options.append((p, p + 2))
            p += 6 + self.u32(p + 2)
        p += 2
        assert data[p:p + 10] == b"flyrecord\0"
        p += 10
        self.cpu_offset, self.cpu_size = p, p + 8
        self.data_start, self.data_len = self.u64(p), self.u64(p + 8)
        self.records = self.walk_pages()

    def u16(self, p):
        return struct.unpack_from("<H", self.data, p)[0]

    def u32(self, p):
        return struct.unpack_from("<I", self.data, p)[0]

    def u64(self, p):
        return struct.unpack_from("<Q", self.data, p)[0]

    def event(self, size_field, start, n):
        text = self.data[start:start + n].decode()
        fields = {}
        for line in text.splitlines():
            if "\tfield:" not in line:
                continue
            parts = dict(x.strip().split(":", 1) for x in line.strip().split(";") if ":" in x)
            name = parts["field"].split()[-1]
            fields[name] = (int(parts["offset"]), int(parts["size"]))
        name = text.split("\n", 1)[0].split(": ", 1)[1]
        ident = int(text.split("ID: ", 1)[1].split("\n", 1)[0])
        return {"name": name, "id": ident, "size_field": size_field, "start": start, "len": n,
                "fields": fields}

    def walk_pages(self):
        """Every event record of the ring-buffer pages: (payload offset, length, type id)."""
        records = []
        page = self.data_start
        while page < self.data_start + self.data_len:
            commit = self.u64(page + 8) & 0xFFFFF
            p, end = page + 16, page + 16 + commit
            while p < end:
                head = self.u32(p)
                type_len = head & 0x1F
                if type_len == 0:
                    length = self.u32(p + 4) - 4
                    payload = p + 8
                elif type_len <= 28:
                    length = type_len * 4
                    payload = p + 4
                elif type_len == 29:  # padding
                    break
                else:  # time extend or stamp
                    p += 8
                    continue
                records.append((payload, length, self.u16(payload)))
                p = payload + length
            page += 4096
        return records

    def records_of(self, name):
        ev = next(e for e in self.events if e["name"] == name)
        return ev, [r for r in self.records if r[2] == ev["id"]]


def put(data, offset, value, size):
    """value, little endian, in size bytes at offset"""
    data[offset:offset + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def v6_cuts(v6):
    """Every section boundary of the file, and the byte before it."""
    edges = [1, 10, 11, 12, v6.endian, v6.page_size, v6.page_size + 4]
    for size_field, start, n in v6.header_texts:
        edges += [size_field, start, start + n // 2]
    for e in v6.events:
        edges += [e["size_field"], e["start"] + e["len"] // 2]
    edges += [v6.ftrace_count, v6.systems_count, v6.kallsyms_size, v6.printk_size,
              v6.cmdlines_size, v6.cpus, v6.cpu_offset, v6.cpu_size + 8]
    edges += [v6.data_start + k * 4096 for k in range(v6.data_len // 4096)]
    edges += [v6.data_start + 16, v6.data_start + 17]
    return sorted({c + d for c in edges for d in (-1, 0)})


def truncation(data, cuts, i, rng):
    """The i-th of cuts, or past them a cut anywhere."""
    at = cuts[i] if i < len(cuts) else rng.randrange(len(data))
    return "cut at byte %d of %d" % (at, len(data)), data[:at]


def flips(data, rng):
    """1 to 16 bytes anywhere, each XORed with a random nonzero value."""
    out = bytearray(data)
    where = sorted(rng.randrange(len(out)) for _ in range(rng.randint(1, 16)))
    for p in where:
        out[p] ^= rng.randint(1, 255)
    return "bytes %s flipped" % ",".join(map(str, where)), bytes(out)


FORMAT_EDITS = [
    ("a field renamed", lambda t, f, r: t.replace(" %s;" % f, " %s;" % (f[:-1] + "X"), 1)),
    ("a field's size 3", lambda t, f, r: sub_after(t, " %s;" % f, "size:", "3")),
    ("a field's size 0", lambda t, f, r: sub_after(t, " %s;" % f, "size:", "0")),
    ("a field's offset's first digit 9", lambda t, f, r: sub_after(t, " %s;" % f, "offset:", "9")),
    ("a field's signedness", lambda t, f, r: sub_after(t, " %s;" % f, "signed:", "1")),
    ("'field:' misspelt", lambda t, f, r: t.replace("field:", "fxeld:", 1 + r.randrange(6))),
    ("the ID changed", lambda t, f, r: t.replace("ID: ", "ID: %d" % r.randrange(10), 1)[:len(t)]),
    ("the name changed", lambda t, f, r: t.replace("name: ", "name: X", 1)[:len(t)]),
    ("the print format's quote", lambda t, f, r: t.replace('fmt: "', 'fmt: x', 1)),
    ("the print format's parenthesis", lambda t, f, r: t.replace("(", ")", 1 + r.randrange(4))),
    ("a line joined", lambda t, f, r: nth_replace(t, "\n", " ", r.randrange(t.count("\n")))),
    ("a digit changed", lambda t, f, r: nth_digit(t, r)),
    ("a printable byte changed", lambda t, f, r: nth_char(t, r)),
]


def sub_after(text, anchor, key, value):
    """In the field line after anchor, the value of key starts with value."""
    i = text.index(anchor)
    j = text.index(key, i) + len(key)
    return text[:j] + value + text[j + len(value):]


def nth_replace(text, old, new, n):
    parts = text.split(old)
    return old.join(parts[:n + 1]) + new + old.join(parts[n + 1:])


def nth_digit(text, rng):
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    i = rng.choice(digits)
    return text[:i] + str((int(text[i]) + rng.randint(1, 9)) % 10) + text[i + 1:]


def nth_char(text, rng):
    i = rng.randrange(len(text))
    return text[:i] + chr(rng.randint(0x21, 0x7E)) + text[i + 1:]


def fixed_format_edits(v6):
    """Each event without one of its own fields (renamed), or without common_type."""
    cases = []
    for e in v6.events:
        text = v6.data[e["start"]:e["start"] + e["len"]]
        for field in [f for f in e["fields"] if not f.startswith("common_")] + ["common_type"]:
            new = text.replace((" %s;" % field).encode(), (" %s;" % ("x" + field[1:])).encode(), 1)
            out = bytearray(v6.data)
            out[e["start"]:e["start"] + e["len"]] = new
            cases.append(("%s: %s renamed" % (e["name"], field), bytes(out)))
    return cases


def format_edit(v6, rng):
    """An edit of one event format's text, or of the page and event headers; same length."""
    texts = [(e["start"], e["len"], e["name"], list(e["fields"])) for e in v6.events]
    texts += [(start, n, name, ["timestamp", "commit", "data"]) for name, (_, start, n) in
              zip(("header_page", "header_event"), v6.header_texts)]
    start, n, name, fields = rng.choice(texts)
    what, edit = rng.choice(FORMAT_EDITS)
    field = rng.choice([f for f in fields if not f.startswith("common_")] or fields)
    text = v6.data[start:start + n].decode()
    try:
        new = edit(text, field, rng)
    except (ValueError, IndexError):
        new = nth_char(text, rng)
        what = "a printable byte changed"
    new = (new + " " * n)[:n].encode()
    out = bytearray(v6.data)
    out[start:start + n] = new
    return "%s: %s (%s)" % (name, what, field), bytes(out)


def header_values(v6):
    """Extreme values where the file says how big or how many."""
    cases = []
    for value in (0, 1, 3, 4095, 8192, 65536, 1 << 31, 0xFFFFFFFF):
        cases.append(("page size %d" % value, v6.page_size, value, 4))
    for value in (0, 4, 16, 255):
        cases.append(("longs of %d bytes" % value, v6.long_size, value, 1))
    cases.append(("big endian", v6.endian, 1, 1))
    for value in (ord("7"), ord("0"), ord("9"), 0):
        cases.append(("version %r" % chr(value), v6.version, value, 1))
    for (size_field, _, n), name in zip(v6.header_texts, ("header_page", "header_event")):
        for value in (0, n - 1, n + 1, 1 << 40, (1 << 64) - 1):
            cases.append(("%s size %d" % (name, value), size_field, value, 8))
    for field, name, values in ((v6.ftrace_count, "ftrace formats", (0, 19, 0xFFFFFFFF)),
                                (v6.systems_count, "event systems", (0, 2, 0xFFFFFFFF)),
                                (v6.events_count, "filemap events", (0, 6, 0xFFFFFFFF)),
                                (v6.kallsyms_size, "kallsyms size", (1, 0xFFFFFFFF)),
                                (v6.printk_size, "printk size", (0, 0xFFFFFFFF)),
                                (v6.cpus, "CPUs", (0, 2, 255, 0x7FFFFFFF))):
        for value in values:
            cases.append(("%s %d" % (name, value), field, value, 4))
    for value in (0, 1 << 40):
        cases.append(("cmdlines size %d" % value, v6.cmdlines_size, value, 8))
    e = v6.events[0]
    for value in (0, e["len"] + 1, 1 << 62):
        cases.append(("event format size %d" % value, e["size_field"], value, 8))
    for id_field, size_field in v6.options[:3]:
        cases.append(("option size 2^32-1", size_field, 0xFFFFFFFF, 4))
        cases.append(("option id 0x7fff", id_field, 0x7FFF, 2))
    for value in (0, 4096, v6.data_start + 1, len(v6.data), 1 << 63):
        cases.append(("CPU data offset %d" % value, v6.cpu_offset, value, 8))
    for value in (0, 4095, 4097, v6.data_len * 2, 1 << 62):
        cases.append(("CPU data size %d" % value, v6.cpu_size, value, 8))
    first = v6.data_start
    for value in (0, 15, 4080, 4081, 4096, 0x7FFFFFFF, 0xFFFFFFFF):
        cases.append(("first page's commit %#x" % value, first + 8, value, 8))
    for value in (0, (1 << 64) - 1):
        cases.append(("first page's timestamp %#x" % value, first, value, 8))
    return cases


def event_values(v6):
    """Valid records with hostile values: sizes, indexes, inodes, types."""
    cases = []
    mark, marks = v6.records_of("dropbehind_mark")
    add, adds = v6.records_of("mm_filemap_add_to_page_cache")
    end, ends = v6.records_of("dropbehind_end")
    call, calls = v6.records_of("dropbehind_call")

    def field(ev, rec, name, value):
        off, size = ev["fields"][name]
        return (rec[0] + off, value, size)

    for value in (0, 1 << 20, (1 << 20) + 1, 0xFFFFFFFF):
        cases.append(("a mark of %d pages" % value, [field(mark, marks[0], "nr_pages", value)]))
    for value in ((1 << 28) - 1, 1 << 28, 1 << 63, (1 << 64) - 1):
        cases.append(("a mark at page %d" % value, [field(mark, marks[0], "index", value)]))
        cases.append(("an add at page %d" % value, [field(add, adds[0], "index", value)]))
    for value in (20, 21, 31, 255):
        cases.append(("an add of order %d" % value, [field(add, adds[0], "order", value)]))
    cases.append(("every mark of 2^20 pages",
                  [field(mark, r, "nr_pages", 1 << 20) for r in marks]))
    cases.append(("every add of another inode",
                  [field(add, r, "i_ino", 1000 + i) for i, r in enumerate(adds)]))
    cases.append(("every add of inode 0", [field(add, r, "i_ino", 0) for r in adds]))
    cases.append(("every add of device 0", [field(add, r, "s_dev", 0) for r in adds]))
    cases.append(("an end's result and when out of range",
                  [field(end, ends[0], "result", 0xFFFFFFFF), field(end, ends[0], "when", 77)]))
    cases.append(("a call of 2^64-1 bytes at 2^64-1",
                  [field(call, calls[0], "bytes", (1 << 64) - 1),
                   field(call, calls[0], "pos", (1 << 64) - 1)]))
    cases.append(("every add of an unknown type", [(r[0], 9999, 2) for r in adds]))
    cases.append(("an add's type is a mark's", [(adds[0][0], mark["id"], 2)]))
    return [(what, [(off, value, size) for off, value, size in patches]) for what, patches in cases]


def patched(data, patches):
    out = bytearray(data)
    for off, value, size in patches:
        put(out, off, value, size)
    return bytes(out)


def cases(v6_data, v7_data):
    """SEED -> (class, description, bytes), generated on demand."""
    v6 = V6(v6_data)
    cuts = v6_cuts(v6)
    headers = header_values(v6)
    events = event_values(v6)
    renamed = fixed_format_edits(v6)
    classes = [
        # base, count, name, function of (index, rng)
        (1000, len(cuts) + 20, "v6-cut", lambda i, r: truncation(v6_data, cuts, i, r)),
        (2000, 100, "v6-flip", lambda i, r: flips(v6_data, r)),
        (3000, len(renamed) + 40, "v6-format",
         lambda i, r: renamed[i] if i < len(renamed) else format_edit(v6, r)),
        (4000, len(headers), "v6-header",
         lambda i, r: (headers[i][0], patched(v6_data, [headers[i][1:]]))),
        (5000, len(events), "v6-event",
         lambda i, r: (events[i][0], patched(v6_data, events[i][1]))),
        (6000, 30, "v7-cut", lambda i, r: truncation(v7_data, [], i, r)),
        (7000, 50, "v7-flip", lambda i, r: flips(v7_data, r)),
    ]
    for base, count, name, make in classes:
        for i in range(count):
            yield base + i, name, (lambda b=base, i=i, m=make: m(i, random.Random(b + i)))


def main():
    v6_data = open(sys.argv[1], "rb").read()
    v7_data = open(sys.argv[2], "rb").read()
    out = sys.argv[3]
    wanted = {int(s) for s in sys.argv[4:]}
    with open(out + "/cases", "w") as listing:
        for seed, name, make in cases(v6_data, v7_data):
            if wanted and seed not in wanted:
                continue
            what, data = make()
            with open("%s/%d.dat" % (out, seed), "wb") as f:
                f.write(data)
            listing.write("%d %s %s\n" % (seed, name, what))


if __name__ == "__main__":
    main()
