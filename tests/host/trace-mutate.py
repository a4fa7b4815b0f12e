#!/usr/bin/env python3
"""Seeded, deterministic mutations of the replay fixtures, for tests/host/pcviz-fuzz.sh.

Usage: trace-mutate.py FIXTURES OUTDIR [--all | SEED...]
       trace-mutate.py FIXTURES OUTDIR --add SEED...
       trace-mutate.py --long COPIES V6.DAT OUT.DAT
       trace-mutate.py --slim V6.DAT OUT.DAT

Lists every case in OUTDIR/cases, one "SEED CLASS DESCRIPTION" a line, and
writes OUTDIR/SEED.dat for those to run, listed in OUTDIR/run ("SEED
CLASS"): the SEEDs given, every case with --all, else the sample of
sampled().  A case is a function of its seed alone: the same seed always
gives the same file.  FIXTURES is tests/fixtures/replay.  --add writes
the SEEDs' files only, the lists as they were.

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


class V7:
    """Where things are in a format 7 trace.dat (see trace-cmd.dat.v7(5)): every field."""

    def __init__(self, data):
        self.data = data
        p = data.index(b"\0", 10) + 1
        self.fields = [("endian", p, 1), ("long size", p + 1, 1), ("page size", p + 2, 4)]
        self.page = struct.unpack_from("<I", data, p + 2)[0]
        p += 6
        self.edges = [10, p - 1, p, p + 2, p + 6]
        p = data.index(b"\0", p) + 1
        self.compressed = data[self.edges[-1]:p - 1] != b"none"
        p = data.index(b"\0", p) + 1
        self.fields.append(("first options' offset", p, 8))
        self.edges += [p, p + 4, p + 8]
        self.first_options = self.u64(p)
        p += 8
        self.sections = []  # (offset, id, flags, size)
        while p + 16 <= len(data):
            sid, flags, _, size = struct.unpack_from("<HHIQ", data, p)
            self.sections.append((p, sid, flags, size))
            self.fields += [("section %d's id" % sid, p, 2), ("section %d's flags" % sid, p + 2, 2),
                            ("section %d's description" % sid, p + 4, 4),
                            ("section %d's size" % sid, p + 8, 8)]
            self.edges += [p, p + 2, p + 8, p + 16, p + 16 + size // 2]
            if flags & 1 and sid != 3:
                self.fields += [("section %d's compressed size" % sid, p + 16, 4),
                                ("section %d's inflated size" % sid, p + 20, 4)]
            p += 16 + size
        self.edges.append(len(data))
        self.options = []  # (id field offset, id, size, body offset)
        self.cpu_data = []  # (offset, size, compressed)
        for at, sid, flags, size in self.sections:
            if sid != 0:
                continue
            q = at + 16
            while q < at + 16 + size:
                oid, osize = struct.unpack_from("<HI", data, q)
                self.options.append((q, oid, osize, q + 6))
                self.fields += [("option %d's id" % oid, q, 2), ("option %d's size" % oid, q + 2, 4)]
                self.edges += [q, q + 6, q + 6 + osize - 1]
                if oid == 0 or 16 <= oid <= 21:
                    self.fields.append(("option %d's offset" % oid, q + 6, 8))
                if oid == 8:
                    self.fields.append(("the CPU count", q + 6, 4))
                if oid == 3:
                    self.buffer(q + 6)
                q += 6 + osize

    def buffer(self, b):
        self.fields.append(("the buffer's section", b, 8))
        fly = self.u64(b)
        flags = next(f for at, _, f, _ in self.sections if at == fly)
        p = self.data.index(b"\0", b + 8) + 1
        p = self.data.index(b"\0", p) + 1
        self.fields += [("the buffer's page size", p, 4), ("the buffer's CPUs", p + 4, 4)]
        for c in range(self.u32(p + 4)):
            e = p + 8 + 20 * c
            self.fields += [("CPU %d's id" % c, e, 4), ("CPU %d's data offset" % c, e + 4, 8),
                            ("CPU %d's data size" % c, e + 12, 8)]
            offset, size = self.u64(e + 4), self.u64(e + 12)
            self.cpu_data.append((offset, size, flags & 1))
            self.edges += [offset, offset + size]
            if flags & 1:
                self.fields.append(("CPU %d's chunks" % c, offset, 4))
                q = offset + 4
                for k in range(self.u32(offset)):
                    self.fields += [("chunk %d's compressed size" % k, q, 4),
                                    ("chunk %d's inflated size" % k, q + 4, 4)]
                    self.edges += [q, q + 8]
                    q += 8 + self.u32(q)
            else:
                for page in range(offset, offset + size, self.page):
                    self.fields += [("the page at %d's timestamp" % page, page, 8),
                                    ("the page at %d's length" % page, page + 8, 8)]
                    self.edges += [page, page + 16]

    def u32(self, p):
        return struct.unpack_from("<I", self.data, p)[0]

    def u64(self, p):
        return struct.unpack_from("<Q", self.data, p)[0]


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


def v6_fields(v6):
    """Every number of a format 6 file that says where, how big or how many: (name, offset, bytes)."""
    fields = [("endian", v6.endian, 1), ("long size", v6.long_size, 1), ("page size", v6.page_size, 4)]
    for (size_field, _, _), name in zip(v6.header_texts, ("header_page", "header_event")):
        fields.append(("%s size" % name, size_field, 8))
    fields += [("ftrace formats", v6.ftrace_count, 4), ("event systems", v6.systems_count, 4),
               ("events of the last system", v6.events_count, 4),
               ("kallsyms size", v6.kallsyms_size, 4), ("printk size", v6.printk_size, 4),
               ("cmdlines size", v6.cmdlines_size, 8), ("CPUs", v6.cpus, 4),
               ("CPU data offset", v6.cpu_offset, 8), ("CPU data size", v6.cpu_size, 8)]
    fields += [("%s's format size" % e["name"], e["size_field"], 8) for e in v6.events]
    for id_field, size_field in v6.options:
        oid = v6.u16(id_field)
        fields += [("option %d's id" % oid, id_field, 2), ("option %d's size" % oid, size_field, 4)]
    for page in range(v6.data_start, v6.data_start + v6.data_len, 4096):
        fields += [("the page at %d's timestamp" % page, page, 8),
                   ("the page at %d's length" % page, page + 8, 8)]
    return fields


def extremes(size, nbytes):
    """The values a field is set to: edges of its width and of the file's size."""
    values = [0, 1, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32, 1 << 40, (1 << 63) - 1, 1 << 63,
              (1 << 64) - 1, size - 1, size, size + 1]
    mask = (1 << (8 * nbytes)) - 1
    return sorted({v & mask for v in values} | {mask >> 1, (mask >> 1) + 1})


def field_cases(data, fields):
    """Each field set to each of its extreme values."""
    out = []
    for name, offset, nbytes in fields:
        for value in extremes(len(data), nbytes):
            out.append(("%s (byte %d) %#x" % (name, offset, value), patched(data, [(offset, value, nbytes)])))
    return out


def cut_cases(data, edges):
    """Cut at every edge and the bytes on either side."""
    return [("cut at byte %d of %d" % (at, len(data)), data[:at])
            for at in sorted({e + d for e in edges for d in (-1, 0, 1)})
            if 0 < at < len(data)]


def option_cases(data, options, rebuild):
    """Each option's text unterminated, its id another, its body all 0xff; with rebuild (format 6)
    its body emptied and shortened too."""
    out = []
    for id_field, oid, size, body in options:
        if size:
            out.append(("option %d without its last byte's NUL" % oid,
                        patched(data, [(body + size - 1, 0x41, 1)])))
            out.append(("option %d's body all 0xff" % oid, data[:body] + b"\xff" * size + data[body + size:]))
        for other in list(range(1, 23)) + [0x7FFF]:
            if other != oid:
                out.append(("option %d's id %d" % (oid, other), patched(data, [(id_field, other, 2)])))
        if rebuild and size:
            for new in (b"", data[body:body + size - 1]):
                new_data = bytearray(data[:id_field + 2] + struct.pack("<I", len(new)) + new +
                                     data[body + size:])
                out.append(("option %d's body of %d bytes" % (oid, len(new)), bytes(new_data)))
    return out


OPTION_BODIES = [
    (1, b""), (1, b"A"), (1, b"0x7fffffffffffffff\0"), (2, b""), (2, b"CPU: 0"), (3, b""),
    (3, struct.pack("<Q", 1 << 63) + b"x\0"), (3, struct.pack("<Q", 20480)),
    (4, b"[x"), (5, b"Linux"), (6, b"garbage\0"), (6, b""), (7, b"99999999999999999999\0"),
    (7, b"-"), (8, b"\1"), (8, b"\xff\xff\xff\xff"), (9, b"3.1"), (10, b""),
    (10, b"1 ffffffff x\n\0"), (11, b"\1\2"), (12, b""),
    (12, struct.pack("<QII", 1, 0, 0xFFFFFFFF)), (12, struct.pack("<QIII", 1, 0, 1, 0x7FFFFFFF)),
    (13, b"g\0" + struct.pack("<QI", 1, 0xFFFFFFFF)), (13, b"g"), (14, b""),
    (14, struct.pack("<IIQ", 0, 63, 1 << 63)), (14, struct.pack("<IIQ", 1, 0, 0)),
    (15, b"x"), (16, struct.pack("<Q", 32)), (18, b""), (21, struct.pack("<Q", 1 << 63)),
    (22, b""), (0x7FFF, b"anything"),
]


def with_option(v6, oid, body):
    """V6 with one more option, (oid, body), first among its options."""
    at = v6.options[0][0] if v6.options else v6.cpus + 14
    return v6.data[:at] + struct.pack("<HI", oid, len(body)) + body + v6.data[at:]


def page_cases(data, pages, page_size):
    """Each data page: its length 0, past the page, with the missed-events flags; its time 0,
    2^63, 2^64-1."""
    out = []
    for page in pages:
        length = struct.unpack_from("<Q", data, page + 8)[0] & 0xFFFFF
        for value in (0, page_size - 15, 0xFFFFFFFF, (1 << 31) | length, (3 << 30) | length):
            out.append(("the page at %d's length %#x" % (page, value), patched(data, [(page + 8, value, 8)])))
        for value in (0, 1 << 63, (1 << 64) - 1):
            out.append(("the page at %d's time %#x" % (page, value), patched(data, [(page, value, 8)])))
    return out


def without_options(v6):
    """V6 as older tools wrote it: no options section."""
    at = v6.cpus + 4
    end = v6.data.index(b"flyrecord\0", at)
    gap = v6.data_start - (v6.cpu_size + 8)  # zeros between the CPU table and the data
    return (v6.data[:at] + v6.data[end:v6.cpu_size + 8] + b"\0" * (gap + end - at) +
            v6.data[v6.data_start:])


def reproducers(v6_data, v7n_data, v7z_data, writes_data, w6_data):
    """The findings of shared/reviews/hostile-input-2.md, each by its reproducer there."""
    v7n, v6, w6 = V7(v7n_data), V6(v6_data), V6(w6_data)
    first_page = v7n.cpu_data[0][0]
    options = [o for o in v7n.options if o[1] == 0]
    out = [("R2-4 format 7 uncompressed, first page's length 0xffffffff",
            patched(v7n_data, [(first_page + 8, 0xFFFFFFFF, 8)])),
           ("R2-4 format 7, the second options section's DONE pointing back at it",
            patched(v7n_data, [(options[1][3], options[0][0] + 6 + options[0][2], 8)])),
           ("R2-4 format 7, the first options section's DONE pointing at itself",
            patched(v7n_data, [(options[0][3], v7n.first_options, 8)])),
           ("R2-4 format 6, the UNAME option's id 5 made HOOK (6)",
            patched(v6_data, [(next(i for i, _ in v6.options if v6.u16(i) == 5), 6, 2)]))]
    out += [("R2-4 format 7 cut at byte %d" % at, v7n_data[:at]) for at in range(24, 32)]
    cpustat = next(o for o in v7n.options if o[1] == 2)
    out.append(("R2-4 format 7, a CPUSTAT of size 0", patched(v7n_data, [(cpustat[0] + 2, 0, 4)])))
    out.append(("R2-5 format 6, the second page's time 2^63",
                patched(v6_data, [(v6.data_start + 4096, 1 << 63, 8)])))
    out.append(("R2-15 format 6 without an options section", without_options(v6)))
    delete = next(e for e in w6.events if e["name"] == "mm_filemap_delete_from_page_cache")
    out.append(("R2-16 format 6, an event format's size 1",
                patched(w6_data, [(delete["size_field"], 1, 8)])))
    for at in (148, 153):
        out.append(("R2-16 format 7 uncompressed, byte %d (the page header's format) flipped" % at,
                    patched(v7n_data, [(at, v7n_data[at] ^ 1, 1)])))
    out.append(("R2-16 v7-zstd.dat byte 9693 (compressed data) flipped",
                patched(v7z_data, [(9693, v7z_data[9693] ^ 1, 1)])))
    out.append(("R2-16 writes.dat byte 11031 (compressed data) flipped",
                patched(writes_data, [(11031, writes_data[11031] ^ 1, 1)])))
    # libtraceevent's printk formats: "ADDRESS : FORMAT" lines, the formats of 3 bytes or more
    line = v6_data.index(b' : "end"\n')
    out.append(("R2-16b format 6, a printk format without its colon",
                v6_data[:line] + b'   "end"' + v6_data[line + 8:]))
    out.append(("R2-16b format 6, a printk format of 1 byte",
                v6_data[:line] + b' : "e"\n\n' + v6_data[line + 8:]))
    add, adds = v6.records_of("mm_filemap_add_to_page_cache")
    off, size = add["fields"]["order"]
    out.append(("R2-16 an add of order 32", patched(v6_data, [(adds[0][0] + off, 32, size)])))
    return out


def cases(fixtures):
    """SEED -> (class, description, bytes), generated on demand."""
    v6_data, v7_data = fixtures["v6"], fixtures["v7-zstd"]
    v7n_data, writes_data, w6_data = fixtures["v7-none"], fixtures["writes"], fixtures["writes-v6"]
    v6 = V6(v6_data)
    cuts = v6_cuts(v6)
    headers = header_values(v6)
    events = event_values(v6)
    renamed = fixed_format_edits(v6)
    v7n, v7z, wr, w6 = V7(v7n_data), V7(v7_data), V7(writes_data), V6(w6_data)
    lists = [
        # the audit's corpus (shared/reviews/hostile-input-2.md, "Figures"): five seeds, cut at
        # every boundary and the bytes beside it, every field of the structure set to the edges of
        # its width and of the file's size, option contents, hand-made option bodies, data pages
        (10000, "v7n-cut", cut_cases(v7n_data, v7n.edges)),
        (20000, "v7n-field", field_cases(v7n_data, v7n.fields)),
        (30000, "v7z-cut", cut_cases(v7_data, v7z.edges)),
        (40000, "v7z-field", field_cases(v7_data, v7z.fields)),
        (50000, "writes-cut", cut_cases(writes_data, wr.edges)),
        (60000, "writes-field", field_cases(writes_data, wr.fields)),
        (70000, "w6-cut", cut_cases(w6_data, v6_cuts(w6))),
        (80000, "w6-field", field_cases(w6_data, v6_fields(w6))),
        (90000, "v6-field", field_cases(v6_data, v6_fields(v6))),
        (100000, "option", option_cases(v6_data, [(i, v6.u16(i), v6.u32(z), z + 4) for i, z in v6.options], True) +
         option_cases(v7n_data, [o for o in v7n.options if o[1]], False)),
        (110000, "option-body", [("option %d with body %r" % (oid, body[:16]), with_option(v6, oid, body))
                                 for oid, body in OPTION_BODIES]),
        (120000, "page", page_cases(v6_data, range(v6.data_start, v6.data_start + v6.data_len, 4096), 4096) +
         page_cases(v7n_data, range(v7n.cpu_data[0][0], sum(v7n.cpu_data[0][:2]), 4096), 4096)),
        (130000, "repro", reproducers(v6_data, v7n_data, v7_data, writes_data, w6_data)),
    ]
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
        (8000, 50, "v7n-flip", lambda i, r: flips(v7n_data, r)),
        (8100, 50, "writes-flip", lambda i, r: flips(writes_data, r)),
        (8200, 50, "w6-flip", lambda i, r: flips(w6_data, r)),
    ]
    classes += [(base, len(made), name, lambda i, r, m=made: m[i]) for base, name, made in lists]
    for base, count, name, make in classes:
        for i in range(count):
            yield base + i, name, (lambda b=base, i=i, m=make: m(i, random.Random(b + i)))


def long_trace(v6_data, copies):
    """V6.DAT's data pages COPIES times, each copy after the one before: a valid, long trace."""
    v6 = V6(v6_data)
    span = v6.u64(v6.data_start + v6.data_len - 4096) - v6.u64(v6.data_start) + 10 ** 9
    pages = bytearray()
    for k in range(copies):
        for page in range(v6.data_start, v6.data_start + v6.data_len, 4096):
            p = bytearray(v6_data[page:page + 4096])
            put(p, 0, v6.u64(page) + k * span, 8)
            pages += p
    out = bytearray(v6_data[:v6.data_start])
    put(out, v6.cpu_size, len(pages), 8)
    return bytes(out + pages + v6_data[v6.data_start + v6.data_len:])


def slim(v6_data):
    """V6.DAT without its kernel symbols, its data on the first page boundary after the rest."""
    v6 = V6(v6_data)
    head = v6_data[:v6.kallsyms_size] + b"\0\0\0\0"
    rest = bytearray(v6_data[v6.printk_size:v6.cpu_size + 8])
    start = -(-(len(head) + len(rest)) // 4096) * 4096
    put(rest, v6.cpu_offset - v6.printk_size, start, 8)
    out = head + rest
    return bytes(out + b"\0" * (start - len(out)) + v6_data[v6.data_start:])


def sampled(seed, name):
    """The cases of a default run: the reproducers and the hand-made options, one in
    EVERY_OLD of the first classes (below 10000), one in EVERY_AUDIT of the audit's corpus."""
    if name in ("repro", "option-body"):
        return True
    return seed % (EVERY_OLD if seed < 10000 else EVERY_AUDIT) == 0


EVERY_OLD = 8
EVERY_AUDIT = 80


def main():
    if sys.argv[1] == "--slim":
        with open(sys.argv[3], "wb") as f:
            f.write(slim(open(sys.argv[2], "rb").read()))
        return
    if sys.argv[1] == "--long":
        with open(sys.argv[4], "wb") as f:
            f.write(long_trace(open(sys.argv[3], "rb").read(), int(sys.argv[2])))
        return
    fixtures = {name: open("%s/%s.dat" % (sys.argv[1], name), "rb").read()
                for name in ("v6", "v7-zstd", "v7-none", "writes", "writes-v6")}
    out = sys.argv[2]
    if sys.argv[3:4] == ["--add"]:
        wanted = {int(seed) for seed in sys.argv[4:]}
        for seed, _, make in cases(fixtures):
            if seed in wanted:
                with open("%s/%d.dat" % (out, seed), "wb") as f:
                    f.write(make()[1])
        return
    every = sys.argv[3:] == ["--all"]
    wanted = set() if every else {int(seed) for seed in sys.argv[3:]}
    with open(out + "/cases", "w") as listing, open(out + "/run", "w") as run:
        for seed, name, make in cases(fixtures):
            what, data = make()
            listing.write("%d %s %s\n" % (seed, name, what))
            if every or (seed in wanted if wanted else sampled(seed, name)):
                with open("%s/%d.dat" % (out, seed), "wb") as f:
                    f.write(data)
                run.write("%d %s\n" % (seed, name))


if __name__ == "__main__":
    main()
