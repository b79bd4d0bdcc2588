# Looks for each initializer of Inputs/mlp.onnxtxt in the weights blob.
import struct
import sys

blob = open(sys.argv[1], "rb").read()
initializers = {
    "w1": [0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, 0.9, -1.0, 1.1, 1.2],
    "b1": [0.01, 0.02, -0.03],
    "w2": [1, -1, 0.5, 0.25, -2, 2],
}
for name, values in initializers.items():
    data = struct.pack("<%df" % len(values), *values)
    offset = blob.find(data)
    while offset >= 0 and offset % 64:
        offset = blob.find(data, offset + 1)
    print(name, "at 64-aligned offset" if offset >= 0 else "missing")
