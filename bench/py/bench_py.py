"""Python peers of lrelu, timed like the C++ harness (bench/cpp): PyTorch
F.leaky_relu (allocating, out=, in-place), NumPy np.where, ONNX Runtime's
LeakyRelu on a one-node model and, when importable, lrelu's own package,
each paired with np.copyto on the same memory. Writes JSON for
bench/report/.

Run with a Python that sees numpy, torch, onnx and onnxruntime (the
project's .venv, made by bench/setup-peers.sh); missing ones are skipped.
"""
import argparse
import gc
import json
import os
import sys
import time

import numpy as np

import data
import peers
import system
import timing


def parse_size(text):
    scale = {'': 1, 'K': 1 << 10, 'Ki': 1 << 10, 'k': 1 << 10,
             'M': 1 << 20, 'Mi': 1 << 20, 'G': 1 << 30, 'Gi': 1 << 30}
    digits = text.rstrip('KkMGi')
    return int(digits) * scale[text[len(digits):]]


def contract_sizes(path):
    with open(path) as f:
        cases = json.load(f)['cases']
    return sorted({c['elements'] for c in cases
                   if c.get('category') == '1d' and c.get('op') == 'forward'})


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--sizes', default='1Ki,16Ki,256Ki,4Mi,64Mi',
                   help="comma list (1024,16Ki,4Mi) or 'contract'")
    p.add_argument('--dtypes', default='f32,f16,bf16,f64')
    p.add_argument('--threads', default='1,2')
    p.add_argument('--quick', action='store_true')
    p.add_argument('--rounds', default='40,22,12',
                   help='rounds for n<=256Ki, <=4Mi, larger')
    p.add_argument('--batch-ms', type=float, default=2.0)
    p.add_argument('--tries', type=int, default=3)
    p.add_argument('--load-limit', type=float, default=0.15)
    p.add_argument('--retry-wait', type=float, default=10.0)
    p.add_argument('--no-correctness', action='store_true')
    p.add_argument('--out', default='out/bench/py.json')
    p.add_argument('--contract', default=os.path.join(
        here, '..', '..', 'contract', 'v1', 'bench.json'))
    a = p.parse_args()
    if a.quick:  # a smoke run: loaded blocks are flagged, not retried
        a.rounds, a.batch_ms, a.tries = '8,6,4', 1.0, 1
    a.sizes = (contract_sizes(a.contract) if a.sizes == 'contract'
               else [parse_size(s) for s in a.sizes.split(',') if s])
    a.dtypes = [d for d in a.dtypes.split(',') if d]
    a.threads = [int(t) for t in a.threads.split(',') if t]
    a.rounds = [int(r) for r in a.rounds.split(',')]
    return a


class Context:
    """Imported libraries, thread bookkeeping and torch's thread count."""

    def __init__(self):
        self.known = set(system.list_threads())
        self.pin_log = []
        self.versions = {'python': sys.version.split()[0],
                         'numpy': np.__version__}
        self.torch = self._try_import('torch')
        self.ort = self._try_import('onnxruntime')
        self.onnx = self._try_import('onnx')
        self.lrelu = self._try_import('lrelu')
        self.torch_threads = None

    def _try_import(self, name):
        try:
            module = __import__(name)
        except Exception as e:  # a broken install is reported, not fatal
            self.versions[name] = f'not available ({type(e).__name__})'
            return None
        self.versions[name] = getattr(module, '__version__', '?')
        return module

    def pin_new(self, owner):
        system.pin_new_threads(self.known, owner, self.pin_log)

    def set_threads(self, threads):
        """torch re-creates its pool when the count changes; the new worker
        spins for about 20 ms, so change it rarely, pin, and let it settle."""
        if self.torch is None or self.torch_threads == threads:
            return
        self.torch.set_num_threads(threads)
        self.torch.ones(1 << 16).add_(1)  # starts the workers
        self.torch_threads = threads
        self.pin_new(f'torch {threads}T')
        time.sleep(0.05)


def make_variants(ctx):
    variants = peers.numpy_variants()  # first: np.copyto, the baseline
    if ctx.torch is not None:
        variants += peers.torch_variants(ctx.torch)
    if ctx.ort is not None and ctx.onnx is not None:
        variants += peers.onnxruntime_variants(ctx.ort, ctx.onnx, ctx.pin_new)
    if ctx.lrelu is not None:
        variants += peers.lrelu_variants(ctx.lrelu, ctx.torch)
    return variants


def describe(v):
    return {'impl': v.impl, 'variant': v.name, 'threads': v.threads,
            'inplace': v.inplace, 'is_copy': v.is_copy, 'lang': 'py'}


def output_of(ctx, v, result, y):
    if not v.allocates:
        return y
    if isinstance(result, list):  # onnxruntime
        result = result[0]
    if ctx.torch is not None and isinstance(result, ctx.torch.Tensor):
        if result.dtype == ctx.torch.bfloat16:
            return result.view(ctx.torch.int16).numpy().view(np.uint16)
        return result.numpy()
    return np.asarray(result)


def check_correctness(ctx, variants, dtypes):
    rows = []
    n = 100003  # odd, so every kernel has a tail
    for dtype in dtypes:
        x = data.with_specials(dtype, n)
        expected = data.reference(dtype, x)
        for v in variants:
            if v.is_copy or not v.supports(dtype):
                continue
            ctx.set_threads(v.threads)
            row = describe(v) | {'dtype': dtype, 'n': n}
            y = x.copy() if v.inplace else np.full_like(x, 0xA5 if dtype ==
                                                        'bf16' else 7)
            try:
                fn = v.make(x, y, dtype)
                out = output_of(ctx, v, fn(0), y)
                ctx.pin_new(f'{v.impl} {v.threads}T')
                row['exact'], row['result'] = data.compare(dtype, expected,
                                                           out)
                row['supported'] = True
            except peers.Unsupported as e:
                row |= {'exact': False, 'supported': False,
                        'result': f'UNSUPPORTED: {e}'}
            rows.append(row)
    return rows


def time_block(ctx, variants, dtype, n, args):
    rounds = args.rounds[0 if n <= 1 << 18 else 1 if n <= 1 << 22 else 2]
    rounds = max(2, rounds - rounds % 2)
    x = data.uniform(dtype, n)
    y = np.empty_like(x)
    np.copyto(y, x)
    base = timing.Timed(variants[0].make(x, y, dtype))
    records = []
    for threads in args.threads:
        ctx.set_threads(threads)
        group, rows = [], []
        for v in variants:
            if v.threads != threads or not v.supports(dtype):
                continue
            row = describe(v) | {'dtype': dtype, 'n': n}
            try:
                group.append(timing.Timed(v.make(x, y, dtype)))
                rows.append(row)
            except peers.Unsupported as e:
                records.append(row | {'supported': False, 'why': str(e)})
        ctx.pin_new(f'block {dtype} n={n} {threads}T')
        # Warm: caches settle only after many passes over the same buffers.
        start = time.perf_counter()
        passes = 0
        while passes < 30 or time.perf_counter() - start < 0.05:
            base.fn(passes)
            passes += 1
        batch_s = args.batch_ms * 1e-3
        base.calibrate(batch_s)
        for t in group:
            t.calibrate(batch_s)
        ctx.pin_new(f'block {dtype} n={n} {threads}T')
        for row, cell in zip(rows, timing.time_group(base, group, rounds)):
            cell['gbps'] = 2 * x.nbytes / cell['median_ns']
            records.append(row | cell | {'supported': True})
    return records, rounds


def main():
    args = parse_args()
    gc.disable()  # a collection inside a batch would be timed
    ctx = Context()
    if ctx.lrelu is not None:
        # lrelu sizes its pool from the CPU affinity at first use: start it
        # before this thread is pinned to one CPU.
        big = np.ones(1 << 20, np.float32)
        ctx.lrelu.leaky_relu(big, 0.01, threads=2, out=big)
        ctx.pin_new('lrelu pool')
    ctx.set_threads(2)
    if system.pinning_enabled():
        system.pin(0, 0)
        ctx.pin_log.insert(0, 'main->cpu0')
    variants = make_variants(ctx)

    correctness = ([] if args.no_correctness
                   else check_correctness(ctx, variants, args.dtypes))
    records, blocks = [], []
    for n in args.sizes:
        for dtype in args.dtypes:
            kept = None
            for attempt in range(1, args.tries + 1):
                # Thread groups in serpentine order, so torch's count
                # changes once per block, not twice.
                if ctx.torch_threads == args.threads[-1]:
                    args.threads.reverse()
                monitor = system.LoadMonitor()
                monitor.start()
                recs, rounds = time_block(ctx, variants, dtype, n, args)
                load = monitor.stop()
                if kept is None or load < kept[1]:
                    kept = (recs, load)
                if load <= args.load_limit:
                    break
                if attempt < args.tries:
                    print(f'  other processes used {load:.2f} CPU; retrying '
                          f'in {args.retry_wait:.0f} s', file=sys.stderr)
                    time.sleep(args.retry_wait)
            recs, load = kept
            loaded = load > args.load_limit
            blocks.append({'dtype': dtype, 'n': n, 'other_load': load,
                           'attempts': attempt, 'loaded': loaded,
                           'rounds': rounds})
            print(f'{dtype} n={n}: other load {load:.2f} CPU, '
                  f'{attempt} attempt(s)' + (' [loaded]' if loaded else ''))
            for r in recs:
                r['loaded'], r['other_load'] = loaded, load
                if r['supported']:
                    print(f"  {r['impl']:<12} {r['variant']:<40} "
                          f"{r['threads']}T {r['ratio_to_memcpy']:7.2f}"
                          f"{'~' if r['noisy'] else ' '}"
                          f"{'!' if loaded else ' '} {r['gbps']:7.1f} GB/s")
            records += recs
            sys.stdout.flush()

    doc = {'meta': {'harness': 'bench/py/bench_py.py',
                    'date': time.strftime('%Y-%m-%d %H:%M:%S %Z'),
                    'baseline': 'np.copyto(y, x), 1 thread',
                    'versions': ctx.versions,
                    'pinning': '; '.join(ctx.pin_log),
                    'rounds': args.rounds, 'batch_ms': args.batch_ms,
                    'load_limit': args.load_limit, 'tries': args.tries},
           'records': records, 'correctness': correctness, 'blocks': blocks}
    if ctx.torch is not None:
        doc['meta']['torch_config'] = [
            line.strip() for line in ctx.torch.__config__.show().splitlines()
            if 'CPU capability' in line]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        json.dump(doc, f, indent=1)
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
