# SPDX-License-Identifier: MIT
"""Correctness sweep over real models the benchmark suite does not hold.

For every pair of a pairs file (name, mesh A, mesh B; paths relative to
--models), draws random poses (bench_exact --dump-poses) and moves them to
the edge of contact (near_contact), then answers both pose sets with
`vkcollide collide --verify` in exact and in approx mode. --verify answers
every pose with the double-precision CPU reference as well; the sweep
collects its counts (poses, false positives, false negatives) per pair,
pose set and mode, writes them as JSON (--out) and prints a table.

Exact mode must agree with the reference on every pose outside the
touching distance (`collide --verify` places each of its false positives;
a false negative, or a false positive farther apart, is a failure: exit
status 1); approx mode's counts are its accuracy, for the record. A pair
whose near-contact set came out empty (near_contact can step over a mesh
far smaller than the other) has that set skipped, and says so.

    python3 bench/sweep_models.py --build build-rel --out sweep.json
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

VERIFY = re.compile(r'verify: ([\d,]+) poses, ([\d,]+) agree \([^)]*\), ([\d,]+) false positives, ([\d,]+) false negatives')
IN_BAND = re.compile(r'; ([\d,]+) of the false positives within the touching distance')


def read_pairs(path):
    pairs = []
    for number, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 3:
            sys.exit(f'{path}:{number}: expected NAME MESH_A MESH_B, got {len(fields)} fields')
        pairs.append(fields)
    return pairs


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def verify(cli, a, b, poses, mode):
    """Counts of `vkcollide collide --verify`, or None with the error."""
    with tempfile.NamedTemporaryFile(suffix='.csv') as out:
        r = run([cli, 'collide', a, b, '--poses', poses, '--mode', mode, '--verify', '--quiet', '--out', out.name])
    m = VERIFY.search(r.stderr)
    if r.returncode != 0 or not m:
        return None, r.stderr.strip().splitlines()[-1:] or [f'exit status {r.returncode}']
    poses_n, agree, fp, fn = (int(x.replace(',', '')) for x in m.groups())
    if poses_n == 0:
        return None, ['no poses answered']
    band = IN_BAND.search(r.stderr)
    counts = {'poses': poses_n, 'agree': agree, 'false_positives': fp, 'false_negatives': fn}
    if mode == 'exact':
        counts['in_band'] = int(band.group(1).replace(',', '')) if band else 0
    return counts, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build', default='build-rel', help='build directory (src/vkcollide, bench/bench_exact, bench/near_contact)')
    ap.add_argument('--pairs', default=os.path.join(os.path.dirname(__file__), 'sweep_pairs.txt'))
    ap.add_argument('--models', default='/usr/share/assimp/models', help='directory the pairs file\'s paths are relative to')
    ap.add_argument('--poses', type=int, default=600, help='random poses per pair (default 600)')
    ap.add_argument('--radius-factor', type=float, default=0.6, help='random poses: offset ball radius / (rA + rB)')
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--only', help='comma-separated pair names of the pairs file (default: all)')
    ap.add_argument('--out', help='JSON results')
    args = ap.parse_args()
    cli = os.path.join(args.build, 'src', 'vkcollide')
    bench_exact = os.path.join(args.build, 'bench', 'bench_exact')
    near = os.path.join(args.build, 'bench', 'near_contact')
    for tool in (cli, bench_exact, near):
        if not os.access(tool, os.X_OK):
            sys.exit(f'{tool}: not found (build the project and its bench first: meson compile -C {args.build})')
    pairs = read_pairs(args.pairs)
    if args.only:
        wanted = args.only.split(',')
        unknown = sorted(set(wanted) - {name for name, _, _ in pairs})
        if unknown:
            sys.exit(f'--only: {", ".join(unknown)}: not in {args.pairs}')
        pairs = [p for p in pairs if p[0] in wanted]
    results, failed = [], False
    with tempfile.TemporaryDirectory() as work:
        for name, rel_a, rel_b in pairs:
            a, b = os.path.join(args.models, rel_a), os.path.join(args.models, rel_b)
            sets = {'random': os.path.join(work, name + '.random'), 'near': os.path.join(work, name + '.near')}
            with open(sets['random'], 'w') as f:
                r = subprocess.run([bench_exact, a, b, '--dump-poses', str(args.poses), '--radius-factor',
                                    str(args.radius_factor), '--seed', str(args.seed)], stdout=f,
                                   stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                sys.exit(f'{name}: bench_exact --dump-poses failed: {r.stderr.strip()}')
            r = run([near, a, b, '--poses', sets['random'], '--out', sets['near']])
            if r.returncode != 0:
                sys.exit(f'{name}: near_contact failed: {r.stderr.strip()}')
            with open(sets['near']) as f:
                if not any(line.strip() and not line.startswith('#') for line in f):
                    # near_contact found no pose at the edge of contact (it
                    # can step over a mesh far smaller than the other).
                    print(f'{name:22s} near   no pose at the edge of contact: skipped', flush=True)
                    results.append({'pair': name, 'mesh_a': rel_a, 'mesh_b': rel_b, 'poses_kind': 'near',
                                    'skipped': 'near_contact found no pose'})
                    del sets['near']
            for kind, poses in sets.items():
                for mode in ('exact', 'approx'):
                    counts, error = verify(cli, a, b, poses, mode)
                    row = {'pair': name, 'mesh_a': rel_a, 'mesh_b': rel_b, 'poses_kind': kind, 'mode': mode}
                    if counts is None:
                        row['error'] = error[0]
                        failed = True
                    else:
                        row.update(counts)
                        # Exact mode's false positives within the touching
                        # distance are allowed (docs/semantics.md).
                        failed = failed or (mode == 'exact' and (counts['false_negatives'] > 0 or
                                                                 counts['false_positives'] > counts['in_band']))
                    results.append(row)
                    shown = row.get('error') or '{poses} poses, {false_positives} false positives, ' \
                                                 '{false_negatives} false negatives'.format(**row)
                    if 'in_band' in row and row['false_positives']:
                        shown += ', {in_band} of them within the touching distance'.format(**row)
                    print(f'{name:22s} {kind:6s} {mode:6s} {shown}', flush=True)
    if args.out:
        with open(args.out, 'w') as f:
            json.dump({'tool': 'sweep_models', 'pairs_file': os.path.basename(args.pairs),
                       'random_poses': args.poses, 'radius_factor': args.radius_factor, 'seed': args.seed,
                       'results': results}, f, indent=1)
            f.write('\n')
    if failed:
        print('exact mode disagreed with the reference (or a run failed): see above', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
