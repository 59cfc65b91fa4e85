"""One figure per finding: its series over time, the evidence's time ranges shaded."""

from __future__ import annotations

import re
from pathlib import Path

from cclab.doctor.finding import Finding

#: Spans narrower than this share of the x range are drawn as lines, so they stay visible.
THIN = 0.002
#: Rates and sizes whose positive values span more than this factor get a log axis.
SPAN_LOG = 100.0


def draw(finding: Finding, out_dir: Path, stem: str) -> list[Path]:
    """Write ``<stem>-<finding>.png`` in `out_dir` and return its path (none when the finding has no series)."""
    if not finding.series:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    units = list(dict.fromkeys(s.unit for s in finding.series))
    fig, axes = plt.subplots(len(units), 1, figsize=(9, 2.6 * len(units) + 0.6), sharex=True, squeeze=False)
    xs = [x for s in finding.series for x in (s.x.min(), s.x.max()) if len(s.x)]
    width = (max(xs) - min(xs)) if xs else 1.0
    for ax, unit in zip(axes[:, 0], units, strict=True):
        for s in finding.series:
            if s.unit != unit:
                continue
            if s.points:
                ax.plot(s.x, s.y, ".", ms=3, label=s.label)
            else:
                ax.plot(s.x, s.y, lw=1, label=s.label, drawstyle="steps-post")
        for a, b in finding.spans:
            if b - a < THIN * width:
                ax.axvline(a, color="tab:red", alpha=0.25, lw=0.8)
            else:
                ax.axvspan(a, b, color="tab:red", alpha=0.15, lw=0)
        ax.set_ylabel(unit)
        positive = [y for s in finding.series if s.unit == unit for y in s.y if y > 0]
        if unit in ("bit/s", "bytes") and positive and max(positive) > SPAN_LOG * min(positive):
            ax.set_yscale("log", nonpositive="mask")
        ax.legend(loc="best", fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(f"{finding.name}: {finding.verdict}", fontsize=9, wrap=True)
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{_slug(stem)}-{finding.name}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")
