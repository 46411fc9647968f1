#!/usr/bin/env python3
"""Import cycles between the files of each workspace crate (ARCHITECTURE.md §1).

A file "imports" another when it names a path (`crate::a::b`, `super::x`, `self::y`) that
resolves to an item of the other file's module. Cycles are the strongly connected components
of more than one file. A cycle whose files all sit in one folder (one module and its children)
is reported as local; one spanning folders is what the layering aims to have none of.

Usage: scripts/import-cycles.py [--max-cross N]   (exit 1 if more than N cross-folder cycles)
"""

import re
import subprocess
import sys
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)
MOD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", re.M)
PATH_ATTR = re.compile(r"#\[path\s*=\s*\"([^\"]+)\"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def module_tree(root_file):
    """Maps module path (tuple) -> file, following `mod x;` declarations from the crate root."""
    modules = {(): root_file}
    todo = [((), root_file)]
    while todo:
        path, file = todo.pop()
        text = strip_comments(file.read_text())
        explicit = {name: rel for rel, name in PATH_ATTR.findall(text)}
        if file.name in ("lib.rs", "main.rs", "mod.rs"):
            folder = file.parent
        else:
            folder = file.parent / file.stem
        for name in MOD_DECL.findall(text):
            if name in explicit:
                child = (file.parent / explicit[name]).resolve()
            elif (folder / f"{name}.rs").exists():
                child = folder / f"{name}.rs"
            elif (folder / name / "mod.rs").exists():
                child = folder / name / "mod.rs"
            else:
                continue
            modules[path + (name,)] = child
            todo.append((path + (name,), child))
    return modules


def resolve(modules, here, kind, segments):
    if kind == "crate":
        base = ()
    elif kind == "super":
        base = here[:-1]
        while segments and segments[0] == "super":
            base, segments = base[:-1], segments[1:]
    else:
        base = here
    full = base + tuple(segments)
    for n in range(len(full), -1, -1):
        if full[:n] in modules:
            return full[:n]
    return None


def edges(modules):
    by_file = {f: p for p, f in modules.items()}
    out = {p: set() for p in modules}
    for path, file in modules.items():
        text = strip_comments(file.read_text())
        found = [(k, s) for k, s in PATH.findall(text)]
        for kind, prefix, group in USE_GROUP.findall(text):
            for item in re.split(r"[,\s]+", group):
                item = item.strip("{} ")
                if item and item not in ("self",):
                    found.append((kind, prefix + "::" + item.split("::")[0]))
        for kind, segs in found:
            target = resolve(modules, path, kind, [s for s in segs.split("::") if s])
            if target is not None and target != path and modules[target] != file:
                # A parent module's file (mod.rs) is a target only when an item of it is named.
                out[path].add(target)
    return out, by_file


def sccs(graph):
    index, low, stack, on, result, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                result.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def crates():
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--no-deps", "--format-version", "1", "--offline"], cwd=ROOT))
    for package in meta["packages"]:
        for target in package["targets"]:
            if "lib" in target["kind"]:
                yield package["name"], Path(target["src_path"])


def main():
    max_cross = None
    if "--max-cross" in sys.argv:
        max_cross = int(sys.argv[sys.argv.index("--max-cross") + 1])
    cross = 0
    total = 0
    for name, root in sorted(crates()):
        modules = module_tree(root)
        graph, _ = edges(modules)
        for comp in sccs(graph):
            total += 1
            tops = {p[0] if p else "" for p in comp}
            local = len(tops) == 1
            cross += 0 if local else 1
            files = ", ".join(str(modules[p].relative_to(ROOT)) for p in comp)
            print(f"{name}: {'local' if local else 'CROSS'} cycle of {len(comp)}: {files}")
    print(f"import cycles: {total} ({cross} spanning folders)")
    if max_cross is not None and cross > max_cross:
        sys.exit(1)


if __name__ == "__main__":
    main()
