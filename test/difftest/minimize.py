#!/usr/bin/env python3
"""Shrinks a difftest finding to the fewest nodes that still show it.

Delta debugging (Zeller's ddmin) over the node list: a candidate keeps a
subset of the nodes, in their order. A value that a kept node reads and a
dropped node computed becomes a graph input of the same type and shape whose
data is what ONNX Runtime computed for it in the original graph (so
domain-safe values stay domain-safe); a dropped Constant node's value
becomes an initializer instead. The outputs are the kept nodes' values that
no kept node reads, plus the original outputs among them; once the nodes are
minimal, ddmin prunes the outputs too. A candidate reproduces the finding
when difftest's check of it (ORT, then `onnxcc verify`) gives the same
status, and for a refusal, crash or failed build the same message once node
and file names are taken out.

usage: minimize.py --onnxcc build/bin/onnxcc --seed S --component I [--components K] -o DIR
       minimize.py --onnxcc build/bin/onnxcc --model M.onnx --dataset D -o DIR
Writes DIR/model.onnx, DIR/model.onnxtxt (readable), DIR/test_data_set_0/
(inputs and ORT's outputs) and DIR/args.txt (the tolerance for verify).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import difftest  # noqa: E402
import gen_graph  # noqa: E402

import onnx  # noqa: E402
from onnx import helper, numpy_helper  # noqa: E402


def signature(status, detail):
    """What must stay the same for a candidate to reproduce a finding."""
    if status in ("mismatch", "onnxcc-hang", "run-failed"):
        return status
    detail = re.sub(r"'[^']*'", "''", detail)
    detail = re.sub(r"/\S+", "", detail)
    detail = re.sub(r"\d+", "N", detail)
    return status + ":" + detail[:80]


class Minimizer:
    def __init__(self, args, model, datas, tol):
        self.args, self.model, self.tol = args, model, tol
        self.work = tempfile.mkdtemp(prefix="minimize-")
        runner_args = argparse.Namespace(onnxcc=args.onnxcc, ort_dir=args.ort_dir, timeout=args.timeout,
                                         keep=False, target_cpu=args.target_cpu, results=None, quiet=True,
                                         progress=0, strict_symbolic=args.strict_symbolic)
        self.runner = difftest.Runner(runner_args)
        self.tests = 0
        self.values = self.all_values(datas)

    def all_values(self, datas):
        """Every value of the graph as ORT computes it (name -> array)."""
        inferred = onnx.shape_inference.infer_shapes(self.model)
        m = onnx.ModelProto()
        m.CopyFrom(self.model)
        known = {o.name for o in m.graph.output}
        for vi in inferred.graph.value_info:
            if vi.name not in known:
                m.graph.output.append(vi)
        d = os.path.join(self.work, "all")
        os.makedirs(d)
        path = os.path.join(d, "model.onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        ds = os.path.join(d, "test_data_set_0")
        gen_graph.write_dataset(ds, m, datas)
        reply = self.runner.ort.run(path, ds)
        if reply != "ok":
            sys.exit("minimize: ORT cannot run the graph with every value as an output: " + reply)
        values = {vi.name: data for vi, data in zip(m.graph.input, datas)}
        for k, o in enumerate(m.graph.output):
            values[o.name] = numpy_helper.to_array(onnx.load_tensor(os.path.join(ds, "output_%d.pb" % k)))
        return values

    def candidate(self, keep, outputs=None):
        """The model of the nodes `keep` (indices), and its input data."""
        g = self.model.graph
        nodes = [g.node[i] for i in sorted(keep)]
        produced = {o for n in nodes for o in n.output}
        inits = {t.name: t for t in g.initializer}
        consts = {n.output[0]: n for n in g.node if n.op_type == "Constant"}
        graph_inputs = {vi.name: vi for vi in g.input}
        inputs, datas, new_inits, seen = [], [], [], set()
        for n in nodes:
            for name in n.input:
                if not name or name in produced or name in seen:
                    continue
                seen.add(name)
                if name in inits:
                    new_inits.append(inits[name])
                elif name in consts:
                    new_inits.append(numpy_helper.from_array(self.values[name], name))
                else:
                    data = self.values[name]
                    if name in graph_inputs:  # keeps its dim_params
                        inputs.append(graph_inputs[name])
                    else:
                        inputs.append(helper.make_tensor_value_info(
                            name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[data.dtype], list(data.shape)))
                    datas.append(data)
        read = {i for n in nodes for i in n.input}
        original = {o.name for o in g.output}
        if outputs is None:
            outputs = [o for n in nodes for o in n.output if o and (o not in read or o in original)]
        outs = []
        for name in outputs:
            data = self.values[name]
            elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[data.dtype]
            # Dims unstated: a declared shape would turn a wrong shape into a refusal.
            outs.append(helper.make_tensor_value_info(name, elem, [None] * data.ndim))
        graph = helper.make_graph(nodes, g.name + "_min", inputs, outs, new_inits)
        m = helper.make_model(graph, producer_name="onnxcc-difftest-minimize", opset_imports=self.model.opset_import)
        m.ir_version = self.model.ir_version
        return m, datas, outputs

    def reproduces(self, keep, outputs=None):
        if not keep:
            return False
        m, datas, _ = self.candidate(keep, outputs)
        if outputs is not None and not m.graph.output:
            return False
        if not m.graph.output:
            return False
        self.tests += 1
        d = os.path.join(self.work, "t%d" % self.tests)
        status, detail, _ = self.runner.check(m, datas, self.tol, self.args.cxx_opt, d, self.args.target_cpu)
        shutil.rmtree(d, ignore_errors=True)
        ok = signature(status, detail) == self.target
        if self.args.verbose:
            print("  test %d: %d nodes, %s -> %s" % (self.tests, len(keep), status, "yes" if ok else "no"))
        return ok

    def ddmin(self, items, test):
        """Zeller's ddmin: a 1-minimal sublist of items for which test holds."""
        n = 2
        while len(items) >= 2:
            chunk = max(1, len(items) // n)
            subsets = [items[i:i + chunk] for i in range(0, len(items), chunk)]
            reduced = False
            for s in subsets:
                if test(s):
                    items, n, reduced = s, 2, True
                    break
            if not reduced:
                for s in subsets:
                    rest = [x for x in items if x not in s]
                    if test(rest):
                        items, n, reduced = rest, max(n - 1, 2), True
                        break
            if not reduced:
                if n >= len(items):
                    break
                n = min(len(items), n * 2)
        return items

    def run(self):
        g = self.model.graph
        everything = list(range(len(g.node)))
        m, datas, _ = self.candidate(everything, [o.name for o in g.output])
        d = os.path.join(self.work, "orig")
        status, detail, _ = self.runner.check(m, datas, self.tol, self.args.cxx_opt, d, self.args.target_cpu)
        self.target = signature(status, detail)
        print("finding: %s %s" % (status, detail))
        if status == "pass":
            sys.exit("minimize: the graph passes; nothing to minimize")
        keep = self.ddmin(everything, lambda s: self.reproduces(s))
        _, _, outs = self.candidate(keep)
        outs = self.ddmin(outs, lambda o: self.reproduces(keep, o))
        self.keep, self.outs = keep, outs
        return keep, outs

    def write(self, out_dir):
        m, datas, _ = self.candidate(self.keep, self.outs)
        os.makedirs(out_dir, exist_ok=True)
        path = os.path.join(out_dir, "model.onnx")
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        with open(os.path.join(out_dir, "model.onnxtxt"), "w") as f:
            f.write(str(m))
        ds = os.path.join(out_dir, "test_data_set_0")
        shutil.rmtree(ds, ignore_errors=True)
        gen_graph.write_dataset(ds, m, datas)
        reply = self.runner.ort.run(os.path.abspath(path), os.path.abspath(ds))
        if reply != "ok":
            sys.exit("minimize: ORT refuses the minimized model: " + reply)
        with open(os.path.join(out_dir, "args.txt"), "w") as f:
            f.write("--atol %r --rtol %r\n" % self.tol)
        print("minimized to %d of %d nodes (%s), %d outputs, in %d tests: %s"
              % (len(self.keep), len(self.model.graph.node), " ".join(n.op_type for n in m.graph.node),
                 len(self.outs), self.tests, out_dir))
        print(helper.printable_graph(m.graph))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--onnxcc", required=True)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--component", type=int, default=0)
    ap.add_argument("--components", type=int, default=8, help="as given to difftest.py")
    ap.add_argument("--model")
    ap.add_argument("--dataset", help="folder of input_K.pb for --model")
    ap.add_argument("--tol", default=None, help="ATOL,RTOL (default: gen_graph's rule)")
    ap.add_argument("--ort-dir", default=os.environ.get("ONNXCC_ORT_DIR", os.path.join(HERE, "..", "..", ".deps", "onnxruntime-node")))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--cxx-opt", default="-O1")
    ap.add_argument("--target-cpu", default="native", help="none where difftest said so (opt field)")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--strict-symbolic", action="store_true",
                    help="the finding is that onnxcc compiles the graph only with fixed dims")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.ort_dir, "node_modules", "onnxruntime-node")):
        sys.exit("%s: no onnxruntime-node under %s (scripts/setup.sh installs it; or --ort-dir)"
                 % (os.path.basename(__file__), args.ort_dir))
    if args.seed is not None:
        model, datas, info = gen_graph.make_model(args.seed, args.components)
        model, datas = difftest.component_model(model, datas, "g%d_" % args.component)
        tol = info["tol"]
    elif args.model and args.dataset:
        model = onnx.load(args.model)
        datas = [numpy_helper.to_array(onnx.load_tensor(os.path.join(args.dataset, "input_%d.pb" % k)))
                 for k in range(len(model.graph.input))]
        tol = gen_graph.TOL_F32
    else:
        ap.error("give --seed, or --model and --dataset")
    if args.tol:
        tol = tuple(float(x) for x in args.tol.split(","))
    mz = Minimizer(args, model, datas, tol)
    try:
        mz.run()
        mz.write(args.output)
    finally:
        mz.runner.ort.close()
        shutil.rmtree(mz.work, ignore_errors=True)


if __name__ == "__main__":
    main()
