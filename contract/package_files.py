"""Writing a generated package directory, or checking it is up to date: the
tail both generators share (contract/generate.py, contract/prelu/generate.py).
"""
import os


def stale_files(texts, names, out):
  """The names in `names` whose file in `out` differs from texts[name]
  (ASCII) or is missing."""
  stale = []
  for name in names:
    try:
      with open(os.path.join(out, name), "rb") as f:
        if f.read() != texts[name].encode("ascii"):
          stale.append(name)
    except FileNotFoundError:
      stale.append(name)
  return stale


def check(texts, names, out, generator):
  """--check: prints the verdict; returns the exit status (1 if stale)."""
  stale = stale_files(texts, names, out)
  if stale:
    print("stale: %s (run %s)" % (", ".join(stale), generator))
    return 1
  print("contract files are up to date")
  return 0


def write(texts, names, out):
  """Writes texts[name] (ASCII) for each name into `out`."""
  os.makedirs(out, exist_ok=True)
  for name in names:
    with open(os.path.join(out, name), "wb") as f:
      f.write(texts[name].encode("ascii"))
