"""``report.html``: one self-contained page for a run, a sweep or a reproduction, to read offline or share.

Everything is inside the file: figures as PNG data URIs, tables, the resolved scenario, and no script, font or
style sheet from elsewhere. The only outbound links are qvis (https://qvis.quictools.info), which cannot read a
local file by itself, so each trace gets a link to open qvis plus a link to the trace to drop into it.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from cclab.api import TIMESERIES_CSV, TIMESERIES_PARQUET

#: The page's own file name in the reported directory.
REPORT_HTML = "report.html"
QVIS = "https://qvis.quictools.info/"

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
.pass { color: #176f2c; } .fail { color: #b00020; font-weight: bold; } .note { color: #666; }
"""


def _esc(x: Any) -> str:
    return html.escape("—" if x is None else str(x))


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], classes: Sequence[str] = ()) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    body = []
    for i, r in enumerate(rows):
        cls = f' class="{classes[i]}"' if i < len(classes) and classes[i] else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{_esc(c)}</td>" for c in r) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _figure(png: Path, caption: str) -> str:
    data = base64.b64encode(png.read_bytes()).decode()
    return (
        f'<figure><img class="figure" alt="{_esc(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_esc(caption)}</figcaption></figure>"
    )


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "—" if v is None else str(v)


def _summary_tables(summary: Mapping[str, Any]) -> str:
    flows = summary.get("flows", [])
    keys = [k for k in (flows[0].keys() if flows else []) if k != "flow"]
    parts = [
        "<h2>Flows</h2>",
        _table(["flow", *keys], ([f.get("flow"), *(_num(f.get(k)) for k in keys)] for f in flows)),
    ]
    links = summary.get("links", [])
    lkeys = [k for k in (links[0].keys() if links else []) if k not in ("name", "direction")]
    parts += [
        "<h2>Links</h2>",
        _table(
            ["link", "direction", *lkeys],
            ([x.get("name"), x.get("direction"), *(_num(x.get(k)) for k in lkeys)] for x in links),
        ),
    ]
    return "".join(parts)


def _qlog_links(run_dir: Path, base: Path) -> str:
    traces = sorted([*run_dir.glob("*.sqlog"), *run_dir.glob("*.sqlog.gz")])
    if not traces:
        return '<p class="note">No qlog traces in this run (run with <code>--qlog</code> to write them).</p>'
    items = []
    for t in traces:
        rel = t.relative_to(base).as_posix()
        items.append(
            f'<li><a href="{_esc(rel)}">{_esc(t.name)}</a> ({t.stat().st_size / 1e6:.2f} MB) — '
            f'<a href="{QVIS}" target="_blank" rel="noopener">open qvis</a>'
            + (
                " and drop this file, gunzipped, into its file manager</li>"
                if t.suffix == ".gz"
                else " and drop this file into its file manager</li>"
            )
        )
    return "<h2>qlog traces</h2><ul>" + "".join(items) + "</ul>"


def _run_section(run_dir: Path, base: Path, heading: str | None = None) -> str:
    from cclab.plot import plot_dir

    summary = json.loads((run_dir / "summary.json").read_text())
    parts = [f"<h1>{_esc(heading or run_dir.name)}</h1>"]
    record = run_dir / "run.json"
    if record.is_file():
        r = json.loads(record.read_text())
        meta = [(k, r.get(k)) for k in ("scenario", "scenario_file", "overrides", "seed", "cclab_version", "run_hash")]
        parts.append(_table(["", "value"], ((k, json.dumps(v) if isinstance(v, list) else v) for k, v in meta)))
    else:
        parts.append(_table(["", "value"], [("scenario", summary.get("scenario")), ("seed", summary.get("seed"))]))
    parts.append(_summary_tables(summary))
    if any((run_dir / name).is_file() for name in (TIMESERIES_PARQUET, TIMESERIES_CSV)):
        pngs = [p for p in plot_dir(run_dir) if p.suffix == ".png" and p.stem == "overview"]
        parts += ["<h2>Time series</h2>", *(_figure(p, f"{run_dir.name}: {p.stem}") for p in pngs)]
    parts.append(_qlog_links(run_dir, base))
    resolved = run_dir / "scenario.resolved.toml"
    if resolved.is_file():
        parts += ["<h2>Scenario (resolved)</h2>", f"<pre>{_esc(resolved.read_text())}</pre>"]
    return "".join(parts)


def _sweep_section(sweep_dir: Path) -> str:
    import polars as pl

    from cclab.sweep import SWEEP_PARQUET
    from cclab.sweep_plot import plot_sweep, swept_keys

    df = pl.read_parquet(sweep_dir / SWEEP_PARQUET)
    keys = swept_keys(df)
    shown = [c for c in ("run", *keys, "seed", "status", "error") if c in df.columns]
    shown += [c for c in df.columns if c.startswith("flows.") and c.endswith((".goodput_bps", ".srtt_s", ".loss_rate"))]
    parts = [
        f"<h1>Sweep {_esc(sweep_dir.name)}</h1>",
        f"<p>{df.height} runs; swept: {_esc(', '.join(keys) or 'none')}</p>",
    ]
    parts.append(_table(shown, ([_num(v) for v in row] for row in df.select(shown).iter_rows())))
    for x in keys[:1]:
        for y in ("goodput_bps", "srtt_s"):
            if any(c.endswith(f".{y}") for c in df.columns):
                pngs = [p for p in plot_sweep(sweep_dir, x, y) if p.suffix == ".png"]
                parts += [_figure(p, f"{y} against {x}: mean and 95 % interval across seeds") for p in pngs]
    return "".join(parts)


def _reproduction_section(case_dir: Path) -> str:
    verdicts = json.loads((case_dir / "verdicts.json").read_text())
    rows = verdicts.get("verdicts", [])
    headers = ["quantity", "report", "ours", "tolerance", "status"]
    classes = [
        "pass" if v.get("status") == "pass" else ("fail" if "fail" in str(v.get("status")) else "") for v in rows
    ]
    parts = [
        f"<h1>{_esc(verdicts.get('case', case_dir.name))}: {_esc(verdicts.get('title', ''))}</h1>",
        _table(headers, ([v.get(h) for h in headers] for v in rows), classes),
    ]
    parts += [_figure(p, p.stem) for p in sorted(case_dir.glob("*.png"))]
    return "".join(parts)


def write_report(directory: str | PathLike[str], out: str | PathLike[str] | None = None) -> Path:
    """Write the report of a run, sweep or reproduction directory (default ``DIR/report.html``).

    Raises
    ------
    FileNotFoundError
        The directory holds no run (``summary.json``), sweep (``sweep.parquet``) or reproduction
        (``verdicts.json``, or subdirectories with one).
    """
    from cclab.sweep import SWEEP_PARQUET

    d = Path(directory)
    if (d / "summary.json").is_file():
        kind, body = "run", _run_section(d, d)
    elif (d / SWEEP_PARQUET).is_file():
        kind, body = "sweep", _sweep_section(d)
    elif (d / "verdicts.json").is_file():
        kind, body = "reproduction", _reproduction_section(d)
    elif cases := sorted(p for p in d.iterdir() if (p / "verdicts.json").is_file()) if d.is_dir() else []:
        kind, body = "reproductions", "".join(_reproduction_section(c) for c in cases)
    else:
        raise FileNotFoundError(
            f"{d}: not a run, sweep or reproduction directory (no summary.json, {SWEEP_PARQUET} or verdicts.json)"
        )
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>cclab {kind} report: {_esc(d.name)}</title><style>{_STYLE}</style></head>"
        f'<body>{body}<p class="note">Written by cclab; self-contained (figures embedded), loads offline.</p>'
        "</body></html>\n"
    )
    path = Path(out) if out is not None else d / REPORT_HTML
    path.write_text(page)
    return path
