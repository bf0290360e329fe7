#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plots and a Markdown summary of a `vkcollide bench` report.

    bench_report.py REPORT.json [--out DIR]

Writes DIR/summary.md (default: the report's folder) and, when matplotlib
is installed (Debian: python3-matplotlib), four SVG plots beside it:
throughput_batch.svg (pairs per second against batch size, the peers'
rates as lines on the same axes), throughput_triangles.svg (against the
triangle count), stages.svg (device time per pair, stage by stage, stacked)
and accuracy_resolution.svg (approx mode's disagreement with exact mode by
cube resolution). `vkcollide bench` runs it after the suite; the report's
schema is BENCHMARKS.md's. Python's standard library and matplotlib only.
"""

import argparse
import json
import math
import os
import sys

STAGES = ["bounds", "cube_map", "setup", "traversal", "leaves", "containment"]
COLOURS = {
    "exact": "#1f77b4", "approx": "#ff7f0e", "fcl-1": "#7f7f7f", "fcl-all": "#2ca02c",
    "bullet-1": "#c5b0d5", "bullet-all": "#9467bd",
    "bounds": "#4c72b0", "cube_map": "#dd8452", "setup": "#937860", "traversal": "#55a868",
    "leaves": "#c44e52", "containment": "#8172b3", "host": "#bbbbbb",
}


def median(figure):
    if not isinstance(figure, dict):
        return None
    return figure.get("median")


def fig(holder, name):
    return (holder or {}).get("figures", {}).get(name)


def fmt(v, digits=3):
    """A number at a glance: 1,234,567 / 12.3 / 0.0123 / -."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def ratio_text(figure):
    m = median(figure)
    if m is None:
        return "-"
    lo, hi = figure.get("min"), figure.get("max")
    if lo is not None and hi is not None and figure.get("n", 1) > 1 and hi > lo:
        return f"{fmt(m)} ({fmt(lo)}-{fmt(hi)})"
    return fmt(m)


def table_section(lines, title, intro, head):
    """Starts a section of summary.md: its title, a sentence, a table's head."""
    lines += [f"## {title}", "", intro, "", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]


def largest_run(case, mode):
    runs = [r for r in case.get("runs", []) if r.get("mode") == mode and r.get("early_accept", True)]
    if not runs:
        return None
    return max(runs, key=lambda r: (r.get("batch", 0), -abs(r.get("resolution", 64) - 64), -r.get("vertex_budget", 0)))


def peer(case, pid):
    for p in case.get("peers", []):
        if p.get("id") == pid:
            return p
    return None


def peer_ids(report):
    threads = report.get("peers", {}).get("threads", 1)
    ids = ["fcl-1", "fcl-all", "bullet-1", "bullet-all"]
    return ids if threads > 1 else ["fcl-1", "bullet-1"]


def peer_label(pid, report):
    name, threads = pid.split("-")
    n = report.get("peers", {}).get("threads", 1)
    library = {"fcl": "FCL", "bullet": "Bullet"}[name]
    return f"{library}, 1 thread" if threads == "1" else f"{library}, {n} threads"


def mesh_triangles(case):
    meshes = case.get("meshes", [])
    return meshes[0].get("triangles") if meshes else None


# ---------------------------------------------------------------- plots


def plots(report, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "matplotlib not found (Debian: apt-get install python3-matplotlib): no plots"
    # Reproducible files: no date, fixed ids.
    matplotlib.rcParams["svg.hashsalt"] = "vkcollide-bench"
    matplotlib.rcParams["font.size"] = 9
    device = report.get("device", {}).get("name", "?")
    cases = [c for c in report.get("cases", []) if "skipped" not in c]
    written = []

    def save(figure, name):
        path = os.path.join(out_dir, name)
        figure.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
        plt.close(figure)
        written.append(name)

    # Throughput against batch size, the peers as horizontal lines.
    batch = next((c for c in cases if c.get("group") == "batch_size"), None)
    if batch:
        f, ax = plt.subplots(figsize=(6.4, 4.2))
        for mode in ("exact", "approx"):
            runs = sorted((r for r in batch.get("runs", []) if r.get("mode") == mode), key=lambda r: r["batch"])
            if not runs:
                continue
            xs = [r["batch"] for r in runs]
            ys = [median(fig(r, "pairs_per_second")) for r in runs]
            lo = [y - fig(r, "pairs_per_second")["min"] for r, y in zip(runs, ys)]
            hi = [fig(r, "pairs_per_second")["max"] - y for r, y in zip(runs, ys)]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, color=COLOURS[mode], label=f"vkcollide {mode}")
        for pid in peer_ids(report):
            p = peer(batch, pid)
            m = median(fig(p, "pairs_per_second"))
            if m:
                ax.axhline(m, linestyle="--", color=COLOURS[pid], label=peer_label(pid, report))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("pairs per batch")
        ax.set_ylabel("pairs per second")
        ax.set_title(f"{batch['pair']} ({fmt(mesh_triangles(batch))} triangles each), {device}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        save(f, "throughput_batch.svg")

    # Throughput against triangle count, FCL's on the same axes.
    tri = sorted((c for c in cases if c.get("group") == "triangles"), key=lambda c: mesh_triangles(c) or 0)
    if tri:
        f, ax = plt.subplots(figsize=(6.4, 4.2))
        xs = [mesh_triangles(c) for c in tri]
        series = [("exact", lambda c: fig(largest_run(c, "exact"), "pairs_per_second"), "o-"),
                  ("approx", lambda c: fig(largest_run(c, "approx"), "pairs_per_second"), "o-")]
        series += [(pid, (lambda c, pid=pid: fig(peer(c, pid), "pairs_per_second")), "s--")
                   for pid in peer_ids(report)]
        for key, get, style in series:
            ys = [median(get(c)) for c in tri]
            if all(y is None for y in ys):
                continue
            label = f"vkcollide {key}" if key in ("exact", "approx") else peer_label(key, report)
            ax.plot(xs, [y if y is not None else float("nan") for y in ys], style, color=COLOURS[key], label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("triangles per mesh (two tori)")
        ax.set_ylabel("pairs per second")
        batch_size = largest_run(tri[0], "exact") or {}
        ax.set_title(f"batch of {fmt(batch_size.get('batch'))} pairs, {device}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        save(f, "throughput_triangles.svg")

    # Device time per pair, stage by stage, per case and mode.
    rows = []
    for c in cases:
        if c.get("group") not in ("batch_size", "collide_fraction", "motion", "triangles"):
            continue
        for mode in ("exact", "approx"):
            r = largest_run(c, mode)
            if r and fig(r, "stage_ns_per_pair.bounds"):
                rows.append((f"{c['id'].split('/', 1)[1]} {mode}", r))
    if rows:
        # Shares of each run's time, the total beside the bar: runs differ
        # by orders of magnitude, which a common linear axis would hide and
        # a log axis would distort.
        f, ax = plt.subplots(figsize=(7.5, 0.28 * len(rows) + 1.2))
        labels = [label for label, _ in rows]
        parts = STAGES + ["host"]
        values = {part: [median(fig(r, "host_ns_per_pair" if part == "host" else f"stage_ns_per_pair.{part}"))
                         or 0.0 for _, r in rows] for part in parts}
        totals = [sum(values[part][i] for part in parts) for i in range(len(rows))]
        left = [0.0] * len(rows)
        for part in parts:
            if not any(values[part]):
                continue
            widths = [100 * v / t if t else 0.0 for v, t in zip(values[part], totals)]
            ax.barh(labels, widths, left=left, color=COLOURS[part], label=part.replace("_", " "))
            left = [a + b for a, b in zip(left, widths)]
        for i, t in enumerate(totals):
            ax.text(101, i, f"{fmt(t)} ns", va="center", fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of each run's time per pair (timed runs; host: the call's time the device was idle)")
        ax.set_title(f"where the time goes, {device}", pad=24)
        ax.legend(fontsize=7, ncol=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        save(f, "stages.svg")

    # Approx mode's disagreement with exact mode, by cube resolution.
    res = [c for c in cases if c.get("group") == "resolution" and c.get("accuracy")]
    if res:
        f, ax = plt.subplots(figsize=(6.4, 4.2))
        for i, c in enumerate(res):
            acc = sorted(c["accuracy"], key=lambda a: a["resolution"])
            xs = [a["resolution"] for a in acc]
            colour = f"C{i}"
            ax.plot(xs, [100 * median(fig(a, "false_positive_rate")) for a in acc], "o-", color=colour,
                    label=f"{c['pair']}: false positives")
            ax.plot(xs, [100 * median(fig(a, "false_negative_rate")) for a in acc], "s--", color=colour,
                    label=f"{c['pair']}: false negatives")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("cube map resolution (texels per edge)")
        ax.set_ylabel("% of poses (about half colliding)")
        ax.set_title(f"approx mode against exact mode, {device}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        save(f, "accuracy_resolution.svg")
    return written, None


# ---------------------------------------------------------------- summary


def summary(report, written, note):
    d, m, t = report.get("device", {}), report.get("machine", {}), report.get("tool", {})
    peers = report.get("peers", {})
    h = report.get("headline", {})
    lines = [f"# vkcollide bench: {d.get('name', '?')}", ""]
    lines.append(f"{report.get('created', '?')}, vkcollide {t.get('version', '?')} ({t.get('commit', '?')}, "
                 f"{t.get('buildtype', '?')}), suite `{report.get('suite', '?')}`"
                 f"{' (only ' + report['only'] + ')' if report.get('only') else ''}, "
                 f"{fmt(report.get('seconds'))} s.")
    lines.append("")
    if report.get("incomplete"):
        lines.append(f"**Incomplete** ({report['incomplete']}): the run stopped before the end; the figures "
                     "below are those of the cases it finished.")
        lines.append("")
    lines.append(f"- Device: {d.get('name', '?')} ({d.get('type', '?')}), driver {d.get('driver', '?')}, "
                 f"Vulkan {d.get('api_version', '?')}"
                 f"{', **validation on: the times mean little**' if d.get('validation') else ''}.")
    load = ""
    if m.get("load_average_start") is not None and m.get("load_average_end") is not None:
        load = f", load average {m['load_average_start']:.1f} at the start and {m['load_average_end']:.1f} at the end"
    lines.append(f"- Machine: {m.get('cpu', '?')}, {m.get('cores', '?')} cores, {m.get('os', '?')}{load}.")
    fcl = f"FCL {peers['fcl_version']}" if peers.get("fcl_version") else ("FCL" if peers.get("fcl") else "no FCL")
    bullet = (f"Bullet {peers['bullet_version']}" if peers.get("bullet_version")
              else ("Bullet" if peers.get("bullet") else "no Bullet"))
    lines.append(f"- Peers: {fcl}, {bullet}; one thread and {peers.get('threads', '?')} threads, same poses.")
    rates = report.get("device_rates", {})
    if rates.get("figures"):
        s = median(rates["figures"].get("raw_samples_per_second"))
        b = median(rates["figures"].get("bandwidth_bytes_per_second"))
        lines.append(f"- Device ceilings: {fmt(s)} cube samples/s, {fmt(b / 1e9 if b else None)} GB/s copy "
                     "bandwidth (read + written).")
    lines.append("")

    lines.append("## Headline")
    lines.append("")
    if h.get("case"):
        lines.append(f"`{h['case']}`, largest batch (`{h.get('exact_run', '?')}`, `{h.get('approx_run', '?')}`); "
                     "ratios are medians (range over the repeats):")
        lines.append("")
    lines.append("| figure | value |")
    lines.append("| --- | --- |")
    names = [("exact_pairs_per_second", "exact mode, pairs/s"),
             ("exact_over_fcl_all_cores", "exact / FCL, all cores"),
             ("exact_over_fcl_1_thread", "exact / FCL, 1 thread"),
             ("exact_over_bullet_all_cores", "exact / Bullet, all cores"),
             ("approx_pairs_per_second", "approx mode, pairs/s"),
             ("approx_over_fcl_all_cores", "approx / FCL, all cores")]
    for key, label in names:
        if key in h:
            lines.append(f"| {label} | {ratio_text(h[key])} |")
    if "lowest_exact_over_fcl_all_cores" in h:
        lines.append(f"| lowest exact / FCL (all cores) of any case | {fmt(h['lowest_exact_over_fcl_all_cores'])} "
                     f"(`{h.get('lowest_exact_over_fcl_all_cores_case')}`) |")
    lines.append("")
    for target in report.get("targets", []):
        met = target.get("met")
        state = "met" if met else ("not met" if met is False else "not measured")
        lines.append(f"- Target ({target.get('set_for')}): {target.get('name')}: {fmt(target.get('value'))}, "
                     f"**{state}**.")
    lines.append("")

    lines.append("## Cases")
    lines.append("")
    lines.append("Pairs per second at each case's largest batch (medians); exact mode's collide fraction.")
    lines.append("")
    pids = peer_ids(report)
    head = ["case", "triangles", "batch", "collide", "exact", "approx"] + [peer_label(p, report) for p in pids]
    head += ["exact / FCL all", "approx / FCL all"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + " --- |" * len(head))
    for c in report.get("cases", []):
        if "skipped" in c:
            lines.append(f"| `{c['id']}` | skipped: {c['skipped']} |" + " |" * (len(head) - 2))
            continue
        if c.get("group") == "resolution":
            continue
        ex, ap = largest_run(c, "exact"), largest_run(c, "approx")
        row = [f"`{c['id']}`", fmt(c.get("triangles")), fmt((ex or ap or {}).get("batch")),
               fmt((ex or {}).get("collide_fraction")),
               fmt(median(fig(ex, "pairs_per_second"))), fmt(median(fig(ap, "pairs_per_second")))]
        row += [fmt(median(fig(peer(c, p), "pairs_per_second"))) for p in pids]
        all_id = "fcl-all" if "fcl-all" in pids else "fcl-1"
        row += [ratio_text(fig(ex, f"ratio_over_{all_id}")), ratio_text(fig(ap, f"ratio_over_{all_id}"))]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")

    off_cases = [c for c in report.get("cases", [])
                 if any(r.get("early_accept") is False for r in c.get("runs", []))]
    if off_cases:
        table_section(lines, "Exact mode without its early accepts",
                      "The traversal alone (`VKCOL_BATCH_NO_EARLY_ACCEPT`) beside the default, on the same poses: "
                      "pairs per second and the ratio over FCL on all cores.",
                      ["case", "exact", "exact, no early accept", "exact / FCL all", "no early accept / FCL all"])
        for c in off_cases:
            all_id = "fcl-all" if peer(c, "fcl-all") else "fcl-1"
            on = largest_run(c, "exact")
            off = next(r for r in c["runs"] if r.get("early_accept") is False)
            lines.append(f"| `{c['id']}` | {fmt(median(fig(on, 'pairs_per_second')))} | "
                         f"{fmt(median(fig(off, 'pairs_per_second')))} | {ratio_text(fig(on, f'ratio_over_{all_id}'))} | "
                         f"{ratio_text(fig(off, f'ratio_over_{all_id}'))} |")
        lines.append("")

    acc_cases = [c for c in report.get("cases", []) if c.get("group") == "resolution" and c.get("accuracy")]
    if acc_cases:
        resolutions = sorted({a["resolution"] for c in acc_cases for a in c["accuracy"]})
        lines.append("## Approx mode against exact mode")
        lines.append("")
        lines.append("False positives / false negatives in % of the poses, by cube resolution.")
        lines.append("")
        lines.append("| pair | " + " | ".join(str(r) for r in resolutions) + " |")
        lines.append("|" + " --- |" * (len(resolutions) + 1))
        for c in acc_cases:
            by = {a["resolution"]: a for a in c["accuracy"]}
            cells = []
            for r in resolutions:
                a = by.get(r)
                cells.append("-" if not a else f"{100 * median(fig(a, 'false_positive_rate')):.2f} / "
                             f"{100 * median(fig(a, 'false_negative_rate')):.2f}")
            lines.append(f"| {c['pair']} | " + " | ".join(cells) + " |")
        lines.append("")

    budget_cases = [c for c in report.get("cases", [])
                    if any(a.get("vertex_budget") for a in c.get("accuracy", []))]
    if budget_cases:
        table_section(lines, "Approx mode's vertex budgets",
                      "Approx mode testing at most about this many vertices of each mesh: pairs per second, its "
                      "ratio over FCL on all cores, and false positives / false negatives against exact mode in % of "
                      "the poses.",
                      ["case", "vertex budget", "approx", "approx / FCL all", "false pos. / neg. %"])
        for c in budget_cases:
            all_id = "fcl-all" if peer(c, "fcl-all") else "fcl-1"
            for a in c["accuracy"]:
                if not a.get("vertex_budget"):
                    continue
                run = next((r for r in c.get("runs", []) if r.get("mode") == "approx" and
                            r.get("vertex_budget") == a["vertex_budget"]), None)
                lines.append(f"| `{c['id']}` | {a['vertex_budget']} | {fmt(median(fig(run, 'pairs_per_second')))} | "
                             f"{ratio_text(fig(run, f'ratio_over_{all_id}'))} | "
                             f"{100 * median(fig(a, 'false_positive_rate')):.2f} / "
                             f"{100 * median(fig(a, 'false_negative_rate')):.2f} |")
        lines.append("")

    if written:
        lines.append("## Plots")
        lines.append("")
        for name in written:
            lines.append(f"![{name}]({name})")
            lines.append("")
    if note:
        lines.append(f"_{note}._")
        lines.append("")
    lines.append("BENCHMARKS.md says what each figure means; `vkcollide bench --compare A.json B.json` compares "
                 "two reports.")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="report.json of vkcollide bench")
    parser.add_argument("--out", help="folder for summary.md and the plots (default: the report's)")
    args = parser.parse_args()
    with open(args.report) as f:
        report = json.load(f)
    if report.get("schema") != "vkcollide-bench" or report.get("schema_version") != 1:
        sys.exit(f"{args.report}: not a vkcollide bench report of schema version 1")
    out_dir = args.out or os.path.dirname(os.path.abspath(args.report))
    os.makedirs(out_dir, exist_ok=True)
    written, note = plots(report, out_dir)
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(summary(report, written, note))


if __name__ == "__main__":
    main()
