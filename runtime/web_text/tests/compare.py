#!/usr/bin/env python3
"""Compare clawrun's text with Python trafilatura's on the test pages (numbers for README.md).

    cargo run --release -p clawrun-web-text --example corpus -- /tmp/webtext
    python3 runtime/web_text/tests/compare.py /tmp/webtext [--diff]

For each page in pages/pages.tsv it reads pages/<page>.trafilatura.txt (tests/trafilatura.py)
and OUT/<page>.clawrun.txt and prints:
- words: precision, recall and F1 of clawrun's words against trafilatura's, as multisets
  (lower-cased, punctuation trimmed, a link's text and URL as separate words, CJK text one
  word per character);
- lines: the share of trafilatura's lines that clawrun also has, verbatim but for trailing
  whitespace, and the reverse;
- links: Markdown links in each, and how many of trafilatura's clawrun has verbatim.
--diff also prints the lines only one side has.
"""

import collections
import pathlib
import re
import sys

PAGES = pathlib.Path(__file__).resolve().parent / "pages"
LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\((<[^>]*>|[^)\s]*)\)")
PUNCT = "#*>-_`|:;,.!?()[]\"'“”‘’。，、：；！？（）《》「」"


def words(text: str) -> collections.Counter:
    text = LINK.sub(lambda m: f"{m.group(1)} {m.group(2)}", text)
    out = []
    for w in text.split():
        w = w.strip(PUNCT).lower()
        if not w:
            continue
        if re.search(r"[\u3000-\u9fff\uff00-\uffef]", w):
            out.extend(c for c in w if c.strip(PUNCT))
        else:
            out.append(w)
    return collections.Counter(out)


def prf(got: collections.Counter, ref: collections.Counter) -> tuple[float, float, float]:
    inter = sum((got & ref).values())
    p = inter / sum(got.values()) if got else float(not ref)
    r = inter / sum(ref.values()) if ref else float(not got)
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    show_diff = "--diff" in sys.argv[2:]
    print(f"{'page':34} {'words P/R/F1':>16} {'lines ref/ours':>15} {'links ref/ours/same':>20}")
    totals = []
    for line in (PAGES / "pages.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name = line.split("\t")[0]
        ref = (PAGES / f"{name}.trafilatura.txt").read_text(encoding="utf-8")
        ours = (out / f"{name}.clawrun.txt").read_text(encoding="utf-8")
        p, r, f = prf(words(ours), words(ref))
        # Lines compare without trailing whitespace (Python ends table rows with "| ").
        ref_lines = [l.rstrip() for l in ref.splitlines()]
        our_lines = [l.rstrip() for l in ours.splitlines()]
        ours_set, ref_set = set(our_lines), set(ref_lines)
        lines_ref = sum(l in ours_set for l in ref_lines) / max(1, len(ref_lines))
        lines_ours = sum(l in ref_set for l in our_lines) / max(1, len(our_lines))
        ref_links = [m.group(0) for m in LINK.finditer(ref)]
        our_links = [m.group(0) for m in LINK.finditer(ours)]
        same = sum((collections.Counter(ref_links) & collections.Counter(our_links)).values())
        totals.append((p, r, f))
        print(
            f"{name:34} {p:4.2f}/{r:4.2f}/{f:4.2f}   {lines_ref:5.0%} / {lines_ours:4.0%}"
            f"   {len(ref_links):5}/{len(our_links):4}/{same:4}"
        )
        if show_diff:
            for l in ref_lines:
                if l not in ours_set:
                    print(f"    - {l[:150]}")
            for l in our_lines:
                if l not in ref_set:
                    print(f"    + {l[:150]}")
    n = len(totals)
    print(
        "mean words P/R/F1: "
        + "/".join(f"{sum(t[i] for t in totals) / n:.3f}" for i in range(3))
    )


if __name__ == "__main__":
    main()
