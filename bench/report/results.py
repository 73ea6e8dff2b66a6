"""Loads the harnesses' JSON, merges it and derives the cross-row ratios."""
import json

DTYPES = ('f32', 'f16', 'bf16', 'f64')
NT_COPY = 'non-temporal-store loop'
SIMD_COPY = 'loadu/storeu loop'


def size_label(n):
    for shift, unit in ((30, 'Gi'), (20, 'Mi'), (10, 'Ki')):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f'{n >> shift}{unit}'
    return f'{n:,}'


def load(paths):
    docs = []
    for path in paths:
        try:
            with open(path) as f:
                docs.append(json.load(f))
        except FileNotFoundError:
            pass
    return docs


def find(records, lang, dtype, n, impl, variant_part, threads):
    for r in records:
        if (r['lang'] == lang and r['dtype'] == dtype and r['n'] == n and
                r['impl'] == impl and variant_part in r['variant'] and
                r['threads'] == threads and r.get('supported')):
            return r
    return None


def derive(records):
    """Adds ratio_to_ntcopy: for C++ rows from the paired ratios (both are
    relative to the same memcpy in the same block); for Python rows from
    median times against the C++ NT copy (another process: rougher)."""
    for r in records:
        if not r.get('supported'):
            continue
        nt = find(records, 'cpp', r['dtype'], r['n'], 'copy', NT_COPY,
                  r['threads'])
        if nt is None:
            r['ratio_to_ntcopy'] = None
        elif r['lang'] == 'cpp':
            r['ratio_to_ntcopy'] = r['ratio_to_memcpy'] / nt['ratio_to_memcpy']
        else:
            r['ratio_to_ntcopy'] = r['median_ns'] / nt['median_ns']
    return records


def merge(docs):
    merged = {'meta': [], 'records': [], 'correctness': [], 'blocks': []}
    for d in docs:
        lang = 'py' if 'py' in d['meta'].get('harness', '') else 'cpp'
        merged['meta'].append(d['meta'])
        for r in d['records']:
            r.setdefault('lang', lang)
            merged['records'].append(r)
        for c in d['correctness']:
            c.setdefault('lang', lang)
            merged['correctness'].append(c)
        for b in d['blocks']:
            merged['blocks'].append(b | {'lang': lang})
    derive(merged['records'])
    return merged
