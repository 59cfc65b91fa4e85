"""A Parquet writer for the time series that needs no import beyond the standard library.

``cclab run`` turns ``timeseries.csv`` into ``timeseries.parquet``; with polars that import alone cost ~0.1 s,
most of a small run's CPU. This writer covers exactly the series' schema: float64 columns and the uint32 id
columns (``flow``, ``link``), every one optional (an empty CSV cell or NaN is null), plain encoding, no
compression, one data page per column per row group of `ROWS_PER_GROUP` rows. It follows the Parquet format
specification (parquet-format ``README.md`` and ``parquet.thrift``, whose structures the footer holds in the
Thrift compact protocol); tests read its files back with polars and compare them with polars' own.
"""

from __future__ import annotations

import csv
import struct
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

#: Rows per row group (and per page): bounds memory, not the file size.
ROWS_PER_GROUP = 65_536
MAGIC = b"PAR1"

# parquet.thrift enums.
_DOUBLE, _INT32 = 5, 1  # Type
_OPTIONAL = 1  # FieldRepetitionType
_UINT_32 = 13  # ConvertedType
_PLAIN, _RLE = 0, 3  # Encoding
_UNCOMPRESSED = 0  # CompressionCodec
_DATA_PAGE = 0  # PageType

# Thrift compact protocol type ids (thrift's compact-protocol spec).
_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12


class _Compact:
    """Thrift compact-protocol encoder for the few shapes Parquet's metadata needs."""

    def __init__(self) -> None:
        self.out = bytearray()
        self._last = [0]  # last field id, per open struct

    def _varint(self, n: int) -> None:
        while n > 0x7F:
            self.out.append((n & 0x7F) | 0x80)
            n >>= 7
        self.out.append(n)

    def _zigzag(self, n: int) -> None:
        self._varint((n << 1) ^ (n >> 63))

    def _field(self, fid: int, ctype: int) -> None:
        delta = fid - self._last[-1]
        if 0 < delta <= 15:
            self.out.append(delta << 4 | ctype)
        else:
            self.out.append(ctype)
            self._zigzag(fid)
        self._last[-1] = fid

    def i32(self, fid: int, v: int) -> None:
        self._field(fid, _I32)
        self._zigzag(v)

    def i64(self, fid: int, v: int) -> None:
        self._field(fid, _I64)
        self._zigzag(v)

    def string(self, fid: int, s: str) -> None:
        b = s.encode()
        self._field(fid, _BINARY)
        self._varint(len(b))
        self.out += b

    def begin(self, fid: int | None = None) -> None:
        """Opens a struct: a field of the current one, or (``fid`` None) a list element or the top level."""
        if fid is not None:
            self._field(fid, _STRUCT)
        self._last.append(0)

    def end(self) -> None:
        self.out.append(0)  # field stop
        self._last.pop()

    def list_header(self, fid: int, elem_type: int, n: int) -> None:
        self._field(fid, _LIST)
        if n < 15:
            self.out.append(n << 4 | elem_type)
        else:
            self.out.append(0xF0 | elem_type)
            self._varint(n)

    def i32_list(self, fid: int, values: Sequence[int]) -> None:
        self.list_header(fid, _I32, len(values))
        for v in values:
            self._zigzag(v)

    def string_list(self, fid: int, values: Sequence[str]) -> None:
        self.list_header(fid, _BINARY, len(values))
        for s in values:
            b = s.encode()
            self._varint(len(b))
            self.out += b


def _definition_levels(present: Sequence[bool]) -> bytes:
    """Definition levels (1 = value, 0 = null), encoded for a data page v1.

    One bit-packed run of the RLE/bit-packing hybrid, bit width 1, behind its 4-byte length.
    """
    bits = bytearray((len(present) + 7) // 8)
    for i, p in enumerate(present):
        if p:
            bits[i >> 3] |= 1 << (i & 7)
    run = _Compact()
    run._varint(len(bits) << 1 | 1)  # header: groups of 8 values, low bit 1 = bit-packed
    body = bytes(run.out) + bytes(bits)
    return struct.pack("<i", len(body)) + body


def _page(values: Sequence[float | None], uint32: bool) -> bytes:
    """One data page: header, definition levels, the non-null values in plain encoding."""
    present = [v is not None for v in values]
    kept = [v for v in values if v is not None]
    data = _definition_levels(present) + (
        struct.pack(f"<{len(kept)}I", *(int(v) for v in kept)) if uint32 else struct.pack(f"<{len(kept)}d", *kept)
    )
    h = _Compact()
    h.begin()
    h.i32(1, _DATA_PAGE)
    h.i32(2, len(data))  # uncompressed size
    h.i32(3, len(data))  # compressed size
    h.begin(5)  # DataPageHeader
    h.i32(1, len(values))
    h.i32(2, _PLAIN)
    h.i32(3, _RLE)  # definition levels
    h.i32(4, _RLE)  # repetition levels (none: the columns are flat)
    h.end()
    h.end()
    return bytes(h.out) + data


def _cell(text: str) -> float | None:
    """A CSV cell as a float; an empty cell or NaN is null, as in polars' reading of the series."""
    if not text:
        return None
    v = float(text)
    return None if v != v else v


def _write_series(rows: Iterable[Sequence[str]], header: Sequence[str], path: Path, ids: Iterable[str]) -> None:
    """Write ``rows`` of CSV cells (each as long as ``header``) to ``path``.

    Columns named in ``ids`` are uint32, the others float64.
    """
    ids = set(ids)
    uint = [name in ids for name in header]
    groups: list[tuple[int, list[tuple[int, int]]]] = []  # (rows, [(offset, size) per column])
    with path.open("wb") as f:
        f.write(MAGIC)
        batch: list[Sequence[str]] = []

        def flush() -> None:
            chunks = []
            for c, is_uint in enumerate(uint):
                page = _page([_cell(r[c]) for r in batch], is_uint)
                chunks.append((f.tell(), len(page)))
                f.write(page)
            groups.append((len(batch), chunks))
            batch.clear()

        for row in rows:
            batch.append(row)
            if len(batch) == ROWS_PER_GROUP:
                flush()
        if batch:
            flush()
        f.write(_footer(header, uint, groups))


def _footer(header: Sequence[str], uint: Sequence[bool], groups: list[tuple[int, list[tuple[int, int]]]]) -> bytes:
    """FileMetaData, its length and the closing magic."""
    m = _Compact()
    m.begin()
    m.i32(1, 1)  # version
    m.list_header(2, _STRUCT, len(header) + 1)
    m.begin()  # the root of the schema tree
    m.string(4, "schema")
    m.i32(5, len(header))
    m.end()
    for name, is_uint in zip(header, uint, strict=True):
        m.begin()
        m.i32(1, _INT32 if is_uint else _DOUBLE)
        m.i32(3, _OPTIONAL)
        m.string(4, name)
        if is_uint:
            m.i32(6, _UINT_32)
        m.end()
    m.i64(3, sum(n for n, _ in groups))
    m.list_header(4, _STRUCT, len(groups))
    for n, chunks in groups:
        m.begin()  # RowGroup
        m.list_header(1, _STRUCT, len(chunks))
        for (offset, size), name, is_uint in zip(chunks, header, uint, strict=True):
            m.begin()  # ColumnChunk
            m.i64(2, offset)
            m.begin(3)  # ColumnMetaData
            m.i32(1, _INT32 if is_uint else _DOUBLE)
            m.i32_list(2, [_PLAIN, _RLE])
            m.string_list(3, [name])
            m.i32(4, _UNCOMPRESSED)
            m.i64(5, n)
            m.i64(6, size)
            m.i64(7, size)
            m.i64(9, offset)
            m.end()
            m.end()
        m.i64(2, sum(size for _, size in chunks))
        m.i64(3, n)
        m.end()
    m.string(6, "cclab")
    m.end()
    return bytes(m.out) + struct.pack("<i", len(m.out)) + MAGIC


def csv_to_parquet(csv_path: Path, path: Path, ids: Iterable[str]) -> None:
    """Convert the simulator's ``timeseries.csv`` (header line, then one row per sample) to Parquet."""
    with csv_path.open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{csv_path}: empty file, no header")

        def rows() -> Iterator[list[str]]:
            for row in reader:
                if len(row) != len(header):
                    raise ValueError(f"{csv_path}:{reader.line_num}: {len(row)} cells under a header of {len(header)}")
                yield row

        _write_series(rows(), header, path, ids)
