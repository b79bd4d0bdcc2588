#!/usr/bin/python3
"""Encodes every TensorProto text file NAME.txt under DIR into NAME.pb.

The verify tests write their datasets in protobuf text format (readable next
to the CHECK lines); protoc, which the build needs anyway, encodes them.
"""
import os
import subprocess
import sys

PROTO = "/usr/include/onnx/onnx.proto"


def main():
    root = sys.argv[1]
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".txt"):
                continue
            text = os.path.join(folder, name)
            with open(text, "rb") as src, open(text[:-4] + ".pb", "wb") as dst:
                subprocess.run(["protoc", "--encode=onnx.TensorProto",
                                "-I" + os.path.dirname(PROTO), PROTO],
                               stdin=src, stdout=dst, check=True)
            os.remove(text)


if __name__ == "__main__":
    main()
