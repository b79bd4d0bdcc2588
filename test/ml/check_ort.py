"""Hand-made ai.onnx.ml models that cover what the scikit-learn models do
not (every aggregate function and post transform of a tree ensemble, missing
values, the binary linear classifier, SVMClassifier with each kernel, two or
more classes, probabilities or its linear form, OneHotEncoder, Imputer,
FeatureVectorizer, string class labels),
checked against ONNX Runtime:
test/difftest/ort_run.js computes each model's outputs on seeded random
inputs and `onnxcc verify` compares (labels exactly, scores within 1e-5
relative; PROBIT within 1e-4 absolute: its float approximation of erfinv
loses most digits near 0.5, where both runtimes' libm roundings show).
Prints `PASS name` or `FAIL name: why`; exits 1 on a failure.

  ONNXCC_ORT_DIR=... python3 test/ml/check_ort.py path/to/onnxcc WORKDIR
"""
import os
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

ML = "ai.onnx.ml"
HERE = os.path.dirname(os.path.abspath(__file__))


def forest(rng, trees, depth, features):
    """nodes_* and leaf lists of random complete trees (BRANCH_LEQ)."""
    a = {k: [] for k in ["treeids", "nodeids", "featureids", "modes", "values",
                         "truenodeids", "falsenodeids", "missing_value_tracks_true"]}
    leaves = []
    for t in range(trees):
        count = 2 ** (depth + 1) - 1
        for n in range(count):
            leaf = n >= 2 ** depth - 1
            a["treeids"].append(t)
            a["nodeids"].append(n)
            a["featureids"].append(0 if leaf else int(rng.integers(features)))
            a["modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["values"].append(0.0 if leaf else float(rng.normal()))
            a["truenodeids"].append(0 if leaf else 2 * n + 1)
            a["falsenodeids"].append(0 if leaf else 2 * n + 2)
            a["missing_value_tracks_true"].append(int(rng.integers(2)))
            if leaf:
                leaves.append((t, n))
    return {"nodes_" + k: v for k, v in a.items()}, leaves


def regressor(rng, aggregate, post, targets=3):
    attrs, leaves = forest(rng, 7, 4, 5)
    tt, tn, ti, tw = [], [], [], []
    for t, n in leaves:
        for k in range(targets):
            tt.append(t)
            tn.append(n)
            ti.append(k)
            tw.append(float(rng.normal()) / 4)
    attrs.update(target_treeids=tt, target_nodeids=tn, target_ids=ti, target_weights=tw,
                 n_targets=targets, aggregate_function=aggregate, post_transform=post,
                 base_values=[float(v) for v in rng.normal(size=targets)])
    node = helper.make_node("TreeEnsembleRegressor", ["X"], ["Y"], domain=ML, **attrs)
    return [node], [("Y", TensorProto.FLOAT, [32, targets])]


def classifier(rng, classes, post):
    attrs, leaves = forest(rng, 9, 3, 5)
    ct, cn, ci, cw = [], [], [], []
    for t, n in leaves:
        for k in range(classes):
            ct.append(t)
            cn.append(n)
            ci.append(k)
            cw.append(float(rng.uniform(0, 1)) / 9)
    attrs.update(class_treeids=ct, class_nodeids=cn, class_ids=ci, class_weights=cw,
                 post_transform=post)
    attrs["classlabels_int64s"] = [10 * k + 3 for k in range(classes)]
    node = helper.make_node("TreeEnsembleClassifier", ["X"], ["Y", "Z"], domain=ML, **attrs)
    return [node], [("Y", TensorProto.INT64, [32]), ("Z", TensorProto.FLOAT, [32, classes])]


def linear_binary(rng, post):
    node = helper.make_node("LinearClassifier", ["X"], ["Y", "Z"], domain=ML,
                            coefficients=[float(v) for v in rng.normal(size=5)],
                            intercepts=[0.25], classlabels_ints=[4, 9], post_transform=post)
    return [node], [("Y", TensorProto.INT64, [32]), ("Z", TensorProto.FLOAT, [32, 2])]


def svm_classifier(rng, classes, post, kernel="RBF", per_class=None, proba=False,
                   positive=False):
    """SVMClassifier: with support vectors (per_class of them per class),
    else the linear form (a coefficient row per class)."""
    attrs = dict(classlabels_ints=[3 * k + 1 for k in range(classes)], post_transform=post,
                 kernel_type=kernel, kernel_params=[0.3, 0.5, 2.0])
    pairs = classes * (classes - 1) // 2
    if per_class:
        n = sum(per_class)
        attrs.update(vectors_per_class=per_class,
                     support_vectors=[float(v) for v in rng.normal(size=n * 5)],
                     coefficients=[float(v) for v in rng.normal(size=(classes - 1) * n)],
                     rho=[float(v) for v in rng.normal(size=pairs) / 4])
        if proba:
            attrs.update(prob_a=[float(v) for v in -1 - rng.uniform(size=pairs)],
                         prob_b=[float(v) for v in rng.normal(size=pairs) / 4])
        width = classes if proba else (pairs if classes > 2 else 2)
    else:
        coef = rng.normal(size=classes * 5)
        attrs.update(coefficients=[float(abs(v) / 4 if positive else v) for v in coef],
                     rho=[0.1])
        width = classes
    node = helper.make_node("SVMClassifier", ["X"], ["Y", "Z"], domain=ML, **attrs)
    return [node], [("Y", TensorProto.INT64, [32]), ("Z", TensorProto.FLOAT, [32, width])]


def one_hot(rng, zeros):
    """Categories 1..5 of int64 input holding 0..5 (0 is unknown)."""
    node = helper.make_node("OneHotEncoder", ["X"], ["Y"], domain=ML,
                            cats_int64s=[5, 3, 1, 2, 4], zeros=zeros)
    return [node], [("Y", TensorProto.FLOAT, [32, 5, 5])], (TensorProto.INT64, zeros)


def imputer(rng):
    node = helper.make_node("Imputer", ["X"], ["Y"], domain=ML,
                            imputed_value_floats=[float(v) for v in rng.normal(size=5)],
                            replaced_value_float=float("nan"))
    return [node], [("Y", TensorProto.FLOAT, [32, 5])]


def feature_vectorizer(rng):
    """X twice: its first 3 columns, then all 5 and 2 zero columns."""
    node = helper.make_node("FeatureVectorizer", ["X", "X"], ["Y"], domain=ML,
                            inputdimensions=[3, 7])
    return [node], [("Y", TensorProto.FLOAT, [32, 10])]


def cases():
    rng = np.random.default_rng(7)
    for aggregate in ["SUM", "AVERAGE", "MIN", "MAX"]:
        yield "regressor_" + aggregate.lower(), regressor(rng, aggregate, "NONE")
    for post in ["SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"]:
        yield "regressor_" + post.lower(), regressor(rng, "SUM", post)
    yield "regressor_probit_1", regressor(rng, "SUM", "PROBIT", targets=1)
    for post in ["NONE", "SOFTMAX", "LOGISTIC"]:
        yield "classifier3_" + post.lower(), classifier(rng, 3, post)
    yield "classifier4_softmax_zero", classifier(rng, 4, "SOFTMAX_ZERO")
    for post in ["NONE", "LOGISTIC", "SOFTMAX"]:
        yield "linear_binary_" + post.lower(), linear_binary(rng, post)
    yield "svm_rbf3_none", svm_classifier(rng, 3, "NONE", per_class=[3, 2, 4])
    yield "svm_poly3_logistic", svm_classifier(rng, 3, "LOGISTIC", "POLY", per_class=[2, 3, 2])
    yield "svm_sigmoid2_none", svm_classifier(rng, 2, "NONE", "SIGMOID", per_class=[3, 4])
    for post in ["LOGISTIC", "SOFTMAX", "PROBIT"]:
        yield "svm_rbf2_" + post.lower(), svm_classifier(rng, 2, post, per_class=[4, 2])
    yield "svm_rbf4_proba", svm_classifier(rng, 4, "NONE", per_class=[2, 3, 2, 3], proba=True)
    yield "svm_linear2_proba", svm_classifier(rng, 2, "NONE", "LINEAR", per_class=[3, 3],
                                              proba=True)
    yield "svm_linear3_softmax", svm_classifier(rng, 3, "SOFTMAX")
    yield "svm_linear2_none", svm_classifier(rng, 2, "NONE")
    yield "svm_linear2_positive", svm_classifier(rng, 2, "NONE", positive=True)
    yield "one_hot_encoder", one_hot(rng, 1)
    yield "imputer", imputer(rng)
    yield "feature_vectorizer", feature_vectorizer(rng)


def main():
    onnxcc, work = sys.argv[1], sys.argv[2]
    env = dict(os.environ)
    failed = 0
    rng = np.random.default_rng(11)
    for name, case in cases():
        nodes, outputs = case[0], case[1]
        int_input = len(case) > 2
        d = os.path.join(work, name)
        data = os.path.join(d, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        graph = helper.make_graph(
            nodes, name, [helper.make_tensor_value_info(
                "X", TensorProto.INT64 if int_input else TensorProto.FLOAT, [32, 5])],
            [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 3)])
        save(model, os.path.join(d, "model.onnx"))
        if int_input:
            x = rng.integers(1 if case[2][1] == 0 else 0, 6, size=(32, 5)).astype(np.int64)
        else:
            x = rng.normal(size=(32, 5)).astype(np.float32)
            x[rng.uniform(size=x.shape) < 0.05] = np.nan  # missing values
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x).SerializeToString())
        r = subprocess.run(["node", os.path.join(HERE, "..", "difftest", "ort_run.js")],
                           input="%s\t%s\n" % (os.path.join(d, "model.onnx"), data),
                           capture_output=True, text=True, env=env)
        if r.returncode or not r.stdout.startswith("ok"):
            failed += 1
            print("FAIL %s: ONNX Runtime: %s" % (name, (r.stdout + r.stderr).strip()[:300]))
            continue
        atol = "1e-4" if "probit" in name else "1e-6"
        r = subprocess.run([onnxcc, "verify", os.path.join(d, "model.onnx"), data, "--rtol",
                            "1e-5", "--atol", atol], capture_output=True, text=True)
        if r.returncode:
            failed += 1
            print("FAIL %s: %s" % (name, " | ".join((r.stderr + r.stdout).strip().splitlines()[-3:])))
        else:
            print("PASS %s" % name)
        if name.startswith(("classifier", "linear_binary", "svm_")):
            failed += check_string_labels(onnxcc, name, model, d, data, atol)
    return 1 if failed else 0


def check_string_labels(onnxcc, name, model, d, data, atol):
    """The classifier again with string class labels ("label<k>" for int label
    k), against ONNX Runtime's int labels mapped to those strings (its
    node binding cannot write string tensors)."""
    node = model.graph.node[0]
    for a in list(node.attribute):
        if a.name in ("classlabels_int64s", "classlabels_ints"):
            labels = list(a.ints)
            node.attribute.remove(a)
            node.attribute.extend([helper.make_attribute(
                "classlabels_strings", [("label%d" % k).encode() for k in labels])])
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.STRING
    sd = os.path.join(d, "strings")
    os.makedirs(sd, exist_ok=True)
    save(model, os.path.join(sd, "model.onnx"))
    with open(os.path.join(data, "output_0.pb"), "rb") as f:
        t = TensorProto()
        t.ParseFromString(f.read())
    ints = numpy_helper.to_array(t)
    strings = np.array([("label%d" % k).encode() for k in ints.ravel()], dtype=object)
    for k in ["input_0.pb", "output_1.pb"]:
        with open(os.path.join(data, k), "rb") as f, open(os.path.join(sd, k), "wb") as g:
            g.write(f.read())
    with open(os.path.join(sd, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(strings.reshape(ints.shape)).SerializeToString())
    r = subprocess.run([onnxcc, "verify", os.path.join(sd, "model.onnx"), sd, "--rtol", "1e-5",
                        "--atol", atol], capture_output=True, text=True)
    if r.returncode:
        print("FAIL %s strings: %s" % (name, " | ".join((r.stderr + r.stdout).strip().splitlines()[-3:])))
        return 1
    print("PASS %s strings" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
