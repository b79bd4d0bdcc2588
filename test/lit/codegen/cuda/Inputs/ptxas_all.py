"""Assembles every NAME.ptx under a conformance cache with ptxas for sm_80 and
sm_90. Usage: ptxas_all.py CACHE REPORT. Exits 1 when one fails; prints how
many were assembled, or that ptxas is missing (the CUDA toolkit is optional:
the PTX itself needs no toolkit)."""
import glob
import os
import shutil
import subprocess
import sys

cache, report = sys.argv[1], sys.argv[2]
ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas"
                                  if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) else None)
files = sorted(p for p in glob.glob(os.path.join(cache, "*", "*", "*.ptx")) if os.path.getsize(p))
if not files:
    sys.exit("no PTX under " + cache)
if not ptxas:
    print("ptxas not found: %d PTX files not assembled" % len(files))
    sys.exit(0)
failed = 0
with open(report, "w") as out:
    for path in files:
        for arch in ("sm_80", "sm_90"):
            r = subprocess.run([ptxas, "-arch=" + arch, path, "-o", os.devnull],
                               capture_output=True, text=True)
            if r.returncode:
                failed += 1
                out.write("%s %s: %s\n" % (path, arch, r.stderr.strip().splitlines()[0]))
print("%d PTX files, %d failed to assemble" % (len(files), failed))
sys.exit(1 if failed else 0)
