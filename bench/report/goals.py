"""Issue 7's goals, computed from one run's paired ratios.

All C++ comparisons use ratios to the same memcpy measured in the same block,
so two variants compare as ratio_a / ratio_b. lrelu is measured through its
one-call entry point (lrelu_leaky_relu: planning included) unless a row says
"planned".
"""
from results import SIMD_COPY, size_label

ONE_CALL = 'lrelu_leaky_relu (one call)'
PLANNED = 'lrelu_execute (planned)'
OUT_OF_CACHE = 16 << 20
BANDWIDTH_TARGET = {'f32': 0.95, 'f16': 0.9, 'bf16': 0.9, 'f64': 0.95}


def _cpp(records, dtype, n):
    return [r for r in records if r['lang'] == 'cpp' and r['dtype'] == dtype
            and r['n'] == n and r.get('supported')]


def _lrelu(rows, threads, inplace, api=ONE_CALL):
    name = api + (', in-place' if inplace else '')
    for r in rows:
        if r['impl'] == 'lrelu' and r['variant'] == name and \
                r['threads'] == threads:
            return r
    return None


def _flag(*rows):
    return (('~' if any(r['noisy'] for r in rows) else '') +
            ('!' if any(r.get('loaded') for r in rows) else ''))


def bandwidth_goals(records, dtypes, sizes):
    """Out of cache, 2 threads: lrelu's bandwidth over the best copy's."""
    out = []
    for dtype in dtypes:
        for n in (s for s in sizes if s >= OUT_OF_CACHE):
            rows = _cpp(records, dtype, n)
            copies = [r for r in rows if r['impl'] == 'copy']
            lr = _lrelu(rows, 2, False)
            if not copies or lr is None:
                continue
            best = min(copies, key=lambda r: r['ratio_to_memcpy'])
            value = best['ratio_to_memcpy'] / lr['ratio_to_memcpy']
            target = BANDWIDTH_TARGET[dtype]
            out.append({
                'goal': f'{dtype}, n={size_label(n)}, 2 threads, out of '
                        'place: bandwidth / best copy\'s',
                'measured': f"{value:.2f} ({lr['gbps']:.1f} vs "
                            f"{best['gbps']:.1f} GB/s, {best['variant']} "
                            f"{best['threads']}T){_flag(lr, best)}",
                'target': f'>= {target:.2f}',
                'met': value >= target,
                'extra': dtype == 'f64'})
    return out


def cache_goals(records, dtypes, sizes):
    """16 Ki-256 Ki: time within 1.1x of the best SIMD copy loop that may
    use at most as many threads."""
    out = []
    for dtype in dtypes:
        for n in (s for s in sizes if 16 << 10 <= s <= 256 << 10):
            rows = _cpp(records, dtype, n)
            for threads in (1, 2):
                simd = [r for r in rows if r['impl'] == 'copy' and
                        SIMD_COPY in r['variant'] and r['threads'] <= threads]
                if not simd:
                    continue
                best = min(simd, key=lambda r: r['ratio_to_memcpy'])
                for inplace in (False, True):
                    lr = _lrelu(rows, threads, inplace)
                    if lr is None:
                        continue
                    value = lr['ratio_to_memcpy'] / best['ratio_to_memcpy']
                    out.append({
                        'goal': f"{dtype}, n={size_label(n)}, {threads}T, "
                                f"{'in' if inplace else 'out of'} place: "
                                f"time / SIMD copy's ({best['threads']}T)",
                        'measured': f'{value:.2f}{_flag(lr, best)}',
                        'target': '<= 1.10', 'met': value <= 1.10,
                        'extra': dtype == 'f64'})
    return out


def small_goals(records, dtypes):
    """1 Ki: the whole call within 1.1x of a 1-thread memcpy."""
    out = []
    for dtype in dtypes:
        rows = _cpp(records, dtype, 1 << 10)
        for threads in (1, 2):
            for inplace in (False, True):
                lr = _lrelu(rows, threads, inplace)
                if lr is None:
                    continue
                value = lr['ratio_to_memcpy']
                out.append({
                    'goal': f"{dtype}, n=1Ki, threads={threads}, "
                            f"{'in' if inplace else 'out of'} place: call "
                            "time / memcpy's",
                    'measured': f"{value:.2f} ({lr['median_ns']:.0f} ns)"
                                f'{_flag(lr)}',
                    'target': '<= 1.10', 'met': value <= 1.10,
                    'extra': dtype == 'f64'})
    return out


def _comparable(peer, inplace):
    if peer['impl'] in ('lrelu', 'copy') or peer.get('is_copy'):
        return False
    return peer['inplace'] == inplace


def peer_losses(records, api, lang='cpp'):
    """Cells where a peer beats lrelu beyond the spread: lrelu's
    interquartile range of estimates lies wholly above the peer's."""
    losses, compared = [], 0
    keys = {(r['dtype'], r['n'], r['threads']) for r in records
            if r['lang'] == lang and r.get('supported')}
    for dtype, n, threads in sorted(keys):
        rows = [r for r in records if r['lang'] == lang and
                r['dtype'] == dtype and r['n'] == n and
                r['threads'] == threads and r.get('supported')]
        for inplace in (False, True):
            lr = next((r for r in rows if r['impl'] == 'lrelu' and
                       r['inplace'] == inplace and api(r)), None)
            if lr is None:
                continue
            for p in rows:
                if not _comparable(p, inplace):
                    continue
                compared += 1
                if lr['ratio_q1'] > p['ratio_q3']:
                    losses.append((lr, p))
    return losses, compared


def peer_goals(records):
    out = []
    apis = [
        ('cpp', 'lrelu one call (planning included)',
         lambda r: r['variant'].startswith(ONE_CALL)),
        ('cpp', 'lrelu planned (lrelu_execute)',
         lambda r: r['variant'].startswith(PLANNED)),
        ('py', 'lrelu Python package',
         lambda r: r['variant'].startswith('lrelu.leaky_relu')),
    ]
    for lang, label, api in apis:
        losses, compared = peer_losses(records, api, lang)
        if not compared:
            continue
        worst = sorted(losses, key=lambda lp: lp[1]['ratio_to_memcpy'] /
                       lp[0]['ratio_to_memcpy'])[:4]
        detail = '; '.join(
            f"{lr['dtype']} n={size_label(lr['n'])} {lr['threads']}T"
            f"{' in-place' if lr['inplace'] else ''}: {p['impl']} "
            f"{p['ratio_to_memcpy']:.2f} vs {lr['ratio_to_memcpy']:.2f}"
            for lr, p in worst)
        out.append({
            'goal': f'{label} vs every {lang} peer cell, same dtype/size/'
                    'threads/placement',
            'measured': f'{len(losses)} of {compared} comparisons lost'
                        + (f' (worst: {detail})' if detail else ''),
            'target': '0 lost beyond the spread',
            'met': not losses, 'extra': False})
    return out


def all_goals(records, dtypes, sizes):
    return (bandwidth_goals(records, dtypes, sizes) +
            cache_goals(records, dtypes, sizes) +
            small_goals(records, dtypes) + peer_goals(records))
