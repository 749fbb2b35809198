"""Summarise py-spy raw (collapsed) stacks written by ``bench/boot.py
--py-spy DIR``: per file, the functions with the most self samples and the
most inclusive samples, optionally only stacks through a given frame.

    .venv/bin/python bench/spy_report.py DIR-or-FILES... [--top 25]
        [--through SUBSTRING] [--group NAME]

``--group`` sums every file whose name contains NAME (the forked workers of
one service) into one report.
"""
import argparse
import collections
import glob
import os


def _frames(stack):
    # py-spy raw lines: "thread;frame (file:line);frame ... count"
    out = []
    for frame in stack.split(";"):
        name = frame.strip()
        # drop the line number so that one function is one entry
        if name.endswith(")") and ":" in name:
            name = name[:name.rfind(":")] + ")"
        out.append(name)
    return out


def load(paths):
    stacks = collections.Counter()
    for path in paths:
        with open(path) as fh:
            for line in fh:
                line = line.rstrip("\n")
                if not line:
                    continue
                stack, _, count = line.rpartition(" ")
                try:
                    stacks[stack] += int(count)
                except ValueError:
                    continue
    return stacks


def report(stacks, top, through=None):
    total = 0
    self_ = collections.Counter()
    incl = collections.Counter()
    for stack, count in stacks.items():
        frames = _frames(stack)
        if through and not any(through in f for f in frames):
            continue
        total += count
        self_[frames[-1]] += count
        for frame in set(frames[1:]):
            incl[frame] += count
    print(f"  samples {total}")
    if not total:
        return
    print("  -- self")
    for name, count in self_.most_common(top):
        print(f"  {100.0 * count / total:5.1f}%  {name}")
    print("  -- inclusive")
    for name, count in incl.most_common(top):
        print(f"  {100.0 * count / total:5.1f}%  {name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--through")
    parser.add_argument("--group", action="append")
    args = parser.parse_args()
    files = []
    for path in args.paths:
        files += (sorted(glob.glob(os.path.join(path, "*.txt")))
                  if os.path.isdir(path) else [path])
    if args.group:
        for group in args.group:
            members = [f for f in files if group in os.path.basename(f)]
            print(f"== {group} ({len(members)} files)")
            report(load(members), args.top, args.through)
        return
    for path in files:
        print(f"== {os.path.basename(path)}")
        report(load([path]), args.top, args.through)


if __name__ == "__main__":
    main()
