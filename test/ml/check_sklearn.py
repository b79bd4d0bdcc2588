"""Fits scikit-learn estimators (and an XGBoost regressor) on sklearn's
shipped datasets, converts them
with sklearn_to_onnx.py and checks onnxcc's compiled model against the
estimator's own predict / predict_proba through `onnxcc verify` (labels
exact, scores within rtol 1e-5; SVC's probabilities 1e-4), and, when ONNX
Runtime is there
($ONNXCC_ORT_DIR, test/difftest/ort_run.js), with what ONNX Runtime computes
on the same model. Prints `PASS name` (`PASS name ort` for the second
check) or `FAIL name: why` per model; exits 1 when one fails.

  python3 test/ml/check_sklearn.py path/to/onnxcc WORKDIR [NAME...]
"""
import os
import subprocess
import sys

import numpy as np
from onnx import SequenceProto, TensorProto, numpy_helper, save
from sklearn import datasets, ensemble, linear_model, pipeline, preprocessing, tree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sklearn_to_onnx  # noqa: E402


def cases():
    iris = datasets.load_iris(return_X_y=True)
    cancer = datasets.load_breast_cancer(return_X_y=True)
    digits = datasets.load_digits(return_X_y=True)
    reg = datasets.make_regression(n_samples=200, n_features=10, noise=5.0, random_state=0)
    yield "dt_iris", tree.DecisionTreeClassifier(max_depth=5, random_state=0), iris
    yield "rf_iris", ensemble.RandomForestClassifier(n_estimators=20, max_depth=6,
                                                     random_state=0), iris
    yield "rf_cancer", ensemble.RandomForestClassifier(n_estimators=30, max_depth=8,
                                                       random_state=0), cancer
    yield "et_digits", ensemble.ExtraTreesClassifier(n_estimators=10, max_depth=8,
                                                     random_state=0), digits
    yield "rf_regression", ensemble.RandomForestRegressor(n_estimators=20, max_depth=6,
                                                          random_state=0), reg
    yield "gb_regression", ensemble.GradientBoostingRegressor(n_estimators=30, max_depth=3,
                                                              random_state=0), reg
    yield "logreg_iris", pipeline.make_pipeline(preprocessing.StandardScaler(),
                                                linear_model.LogisticRegression(max_iter=500)), iris
    yield "logreg_cancer", pipeline.make_pipeline(preprocessing.StandardScaler(),
                                                  linear_model.LogisticRegression(max_iter=500)), cancer
    yield "linreg", linear_model.LinearRegression(), reg
    yield "minmax_l2", pipeline.make_pipeline(preprocessing.MinMaxScaler(),
                                              preprocessing.Normalizer()), iris
    from sklearn import svm
    yield "linear_svc_iris", pipeline.make_pipeline(
        preprocessing.StandardScaler(), svm.LinearSVC(random_state=0, max_iter=5000)), iris
    small = (reg[0][:100], reg[1][:100] / reg[1].std())
    for kernel in ["linear", "poly", "rbf", "sigmoid"]:
        yield "svr_" + kernel, pipeline.make_pipeline(
            preprocessing.StandardScaler(), svm.SVR(kernel=kernel, C=1.0, gamma=0.1)), small
    # SVC, one-vs-one: decision values per pair of classes (iris), two
    # classes (breast_cancer), and Platt's probabilities.
    for kernel in ["linear", "poly", "rbf", "sigmoid"]:
        yield "svc_" + kernel + "_iris", pipeline.make_pipeline(
            preprocessing.StandardScaler(),
            svm.SVC(kernel=kernel, gamma=0.2, decision_function_shape="ovo")), iris
    yield "svc_rbf_cancer", pipeline.make_pipeline(
        preprocessing.StandardScaler(), svm.SVC(kernel="rbf")), cancer
    yield "svc_rbf_proba_iris", pipeline.make_pipeline(
        preprocessing.StandardScaler(),
        svm.SVC(kernel="rbf", probability=True, random_state=0)), iris
    yield "svc_poly_proba_cancer", pipeline.make_pipeline(
        preprocessing.StandardScaler(),
        svm.SVC(kernel="poly", degree=2, probability=True, random_state=0)), cancer
    # String class labels, and ZipMap's sequences of maps (skl2onnx's default
    # form of a classifier's probabilities) with int64 and string keys.
    names = (iris[0], np.array(["setosa", "versicolor", "virginica"])[iris[1]])
    yield "dt_iris_names", tree.DecisionTreeClassifier(max_depth=4, random_state=0), names
    yield "rf_iris_zipmap", ensemble.RandomForestClassifier(n_estimators=10, max_depth=5,
                                                            random_state=0), iris
    yield "logreg_iris_names_zipmap", pipeline.make_pipeline(
        preprocessing.StandardScaler(), linear_model.LogisticRegression(max_iter=500)), names
    import xgboost
    # Targets near 1: XGBoost sums its trees in its own order.
    unit = (reg[0], reg[1] / reg[1].std())
    yield "xgb_regression", xgboost.XGBRegressor(n_estimators=50, max_depth=4,
                                                 random_state=0), unit


def write(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def write_maps(path, probabilities, classes):
    """A SequenceProto of one MapProto per row, class -> probability (what
    ONNX Runtime gives for a ZipMap; onnx 1.12's numpy_helper.from_dict
    cannot make one)."""
    seq = SequenceProto()
    seq.elem_type = SequenceProto.MAP
    strings = not np.issubdtype(np.asarray(classes).dtype, np.number)
    for row in probabilities:
        m = seq.map_values.add()
        m.key_type = TensorProto.STRING if strings else TensorProto.INT64
        if strings:
            m.string_keys.extend(str(c).encode() for c in classes)
        else:
            m.keys.extend(int(c) for c in classes)
        m.values.elem_type = SequenceProto.TENSOR
        for p in row:
            m.values.tensor_values.append(numpy_helper.from_array(np.array(p, np.float32)))
    with open(path, "wb") as f:
        f.write(seq.SerializeToString())


def labels(values):
    """Predicted labels as the model's output: int64, or strings."""
    if np.issubdtype(values.dtype, np.number):
        return values.astype(np.int64)
    return values.astype(object)


def main():
    onnxcc, work = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    failed = 0
    for name, model, (x, y) in cases():
        if only and name not in only:
            continue
        x = x.astype(np.float32)
        model.fit(x, y)
        zipmap = name.endswith("_zipmap")
        d = os.path.join(work, name)
        data = os.path.join(d, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        save(sklearn_to_onnx.convert(model, x.shape[0], x.shape[1], zipmap=zipmap),
             os.path.join(d, "model.onnx"))
        write(os.path.join(data, "input_0.pb"), x)
        if hasattr(model, "decision_function") and not hasattr(model, "predict_proba"):
            # LinearSVC, SVC: labels and decision_function (SVC: one value per
            # pair of classes; for two classes, where scikit-learn gives one
            # value d, SVMClassifier's two scores are d and -d).
            write(os.path.join(data, "output_0.pb"), model.predict(x).astype(np.int64))
            scores = model.decision_function(x)
            if scores.ndim == 1:
                scores = np.stack([scores, -scores], axis=1)
            write(os.path.join(data, "output_1.pb"), scores.astype(np.float32))
        elif hasattr(model, "predict_proba"):
            write(os.path.join(data, "output_0.pb"), labels(model.predict(x)))
            if zipmap:
                write_maps(os.path.join(data, "output_1.pb"), model.predict_proba(x),
                           model.classes_)
            else:
                write(os.path.join(data, "output_1.pb"), model.predict_proba(x).astype(np.float32))
        elif hasattr(model, "predict"):
            write(os.path.join(data, "output_0.pb"),
                  model.predict(x).astype(np.float32).reshape(-1, 1))
        else:
            write(os.path.join(data, "output_0.pb"), model.transform(x).astype(np.float32))
        checks = [("", data)]
        # onnxruntime-node returns no sequences of maps: the ZipMap models are
        # checked against scikit-learn only.
        ort_data = None if zipmap else ort_dataset(d, x)
        if ort_data:
            checks.append((" ort", ort_data))
        for label, dataset in checks:
            # libsvm couples SVC's pairwise probabilities in double with more
            # steps than ONNX Runtime's float iteration, which onnxcc follows:
            # 1e-4 from scikit-learn, 1e-5 from ONNX Runtime.
            tol = "1e-4" if "proba" in name and not label else "1e-5"
            r = subprocess.run([onnxcc, "verify", os.path.join(d, "model.onnx"), dataset,
                                "--rtol", tol, "--atol", tol], capture_output=True,
                               text=True)
            if r.returncode:
                failed += 1
                why = (r.stderr + r.stdout).strip().splitlines()
                print("FAIL %s%s: %s" % (name, label, " | ".join(why[-3:])))
            else:
                print("PASS %s%s" % (name, label))
    return 1 if failed else 0


def ort_dataset(d, x):
    """A dataset of `x` whose outputs ONNX Runtime computed, or None."""
    ort_dir = os.environ.get("ONNXCC_ORT_DIR")
    if not ort_dir or not os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        return None
    data = os.path.join(d, "test_data_ort")
    os.makedirs(data, exist_ok=True)
    write(os.path.join(data, "input_0.pb"), x)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "difftest",
                          "ort_run.js")
    r = subprocess.run(["node", script], input="%s\t%s\n" % (os.path.join(d, "model.onnx"), data),
                       capture_output=True, text=True)
    if r.returncode or not r.stdout.startswith("ok"):
        raise SystemExit("ONNX Runtime failed on %s: %s" % (d, r.stdout + r.stderr))
    return data


if __name__ == "__main__":
    sys.exit(main())
