"""Fits scikit-learn estimators (and XGBoost models) on sklearn's
shipped datasets (some with a tenth of their values NaN), converts them
with sklearn_to_onnx.py and checks onnxcc's compiled model against the
estimator's own predict / predict_proba through `onnxcc verify` (labels
exact, scores within rtol 1e-5; SVC's probabilities 1e-4), and, when ONNX
Runtime is there
($ONNXCC_ORT_DIR, test/difftest/ort_run.js), with what ONNX Runtime computes
on the same model. Prints `PASS name` (`PASS name ort` for the second
check) or `FAIL name: why` per model; exits 1 when one fails.

  python3 test/ml/check_sklearn.py [--symbolic] [--threads N] path/to/onnxcc WORKDIR [NAME...]

With --symbolic the models take X as [N, features] with N a symbolic dim
(as skl2onnx writes it), and the datasets are all rows, the first 7 and one
row; --threads N compiles with that many threads.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
from onnx import MapProto, SequenceProto, TensorProto, numpy_helper, save
from sklearn import (datasets, ensemble, feature_extraction, linear_model, pipeline,
                     preprocessing, tree)

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
    # Boosted classifiers: raw scores plus the initial prediction as base
    # values, LOGISTIC for two classes (one score per row), SOFTMAX for more.
    yield "gb_cancer", ensemble.GradientBoostingClassifier(n_estimators=30, max_depth=3,
                                                           random_state=0), cancer
    yield "gb_iris", ensemble.GradientBoostingClassifier(n_estimators=30, max_depth=3,
                                                         random_state=0), iris
    yield "xgb_cancer", xgboost.XGBClassifier(n_estimators=30, max_depth=3,
                                              random_state=0), cancer
    # base_score 0.3: the margin starts at logit(0.3), a base value.
    yield "xgb_cancer_base_score", xgboost.XGBClassifier(n_estimators=30, max_depth=3,
                                                         base_score=0.3, random_state=0), cancer
    yield "xgb_iris", xgboost.XGBClassifier(n_estimators=30, max_depth=3,
                                            random_state=0), iris
    # HistGradientBoosting: float64 bin thresholds (x <= t), and NaN sent
    # down each split's missing_go_to_left side.
    yield "hgb_cancer", ensemble.HistGradientBoostingClassifier(max_iter=30,
                                                                random_state=0), cancer
    yield "hgb_iris", ensemble.HistGradientBoostingClassifier(max_iter=30,
                                                              random_state=0), iris
    yield "hgb_regression", ensemble.HistGradientBoostingRegressor(max_iter=30,
                                                                   random_state=0), unit
    # A tenth of the values missing (NaN in the input as well as in fitting).
    holes = np.random.RandomState(0).rand(*cancer[0].shape) < 0.1
    cancer_nan = (np.where(holes, np.nan, cancer[0]), cancer[1])
    iris_nan = (np.where(holes[:150, :4], np.nan, iris[0]), iris[1])
    yield "hgb_cancer_nan", ensemble.HistGradientBoostingClassifier(max_iter=30,
                                                                    random_state=0), cancer_nan
    yield "xgb_cancer_nan", xgboost.XGBClassifier(n_estimators=30, max_depth=3,
                                                  random_state=0), cancer_nan
    from sklearn import impute
    yield "imputer_logreg_iris_nan", pipeline.make_pipeline(
        impute.SimpleImputer(), preprocessing.StandardScaler(),
        linear_model.LogisticRegression(max_iter=500)), iris_nan
    yield "imputer_rf_cancer_nan", pipeline.make_pipeline(
        impute.SimpleImputer(strategy="median"),
        ensemble.RandomForestClassifier(n_estimators=10, max_depth=6, random_state=0)), cancer_nan
    # OneHotEncoder of iris rounded to integers (1 to 8 cm), with categories
    # 0 to 5 only: the larger values are unknown and encode as all zeros.
    rounded = (np.round(iris[0]), iris[1])
    # DictVectorizer: each iris row a map of the measurements above 1 cm
    # (so the maps differ in size) plus one name the model never saw.
    names4 = ["sepal length", "sepal width", "petal length", "petal width"]
    dicts = [dict([(n, float(v)) for n, v in zip(names4, row) if v > 1.0] +
                  ([("unseen", 1.0)] if i % 3 == 0 else []))
             for i, row in enumerate(iris[0])]
    yield "dictvec_logreg_iris", pipeline.make_pipeline(
        feature_extraction.DictVectorizer(sparse=False),
        linear_model.LogisticRegression(max_iter=500)), (dicts, iris[1])
    yield "onehot_logreg_iris", pipeline.make_pipeline(
        preprocessing.OneHotEncoder(categories=[np.arange(6.0)] * 4, handle_unknown="ignore"),
        linear_model.LogisticRegression(max_iter=500)), rounded


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


def write_map(path, entries):
    """A MapProto from string to float (a DictVectorizer's input)."""
    m = MapProto()
    m.key_type = TensorProto.STRING
    m.string_keys.extend(k.encode() for k in entries)
    m.values.elem_type = SequenceProto.TENSOR
    for v in entries.values():
        m.values.tensor_values.append(numpy_helper.from_array(np.array(v, np.float32)))
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


def labels(values):
    """Predicted labels as the model's output: int64, or strings."""
    if np.issubdtype(values.dtype, np.number):
        return values.astype(np.int64)
    return values.astype(object)


def write_references(data, model, x, zipmap):
    """A dataset of `x` with the estimator's own outputs."""
    os.makedirs(data, exist_ok=True)
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
            write_maps(os.path.join(data, "output_1.pb"), model.predict_proba(x), model.classes_)
        else:
            write(os.path.join(data, "output_1.pb"), model.predict_proba(x).astype(np.float32))
    elif hasattr(model, "predict"):
        write(os.path.join(data, "output_0.pb"),
              model.predict(x).astype(np.float32).reshape(-1, 1))
    else:
        write(os.path.join(data, "output_0.pb"), model.transform(x).astype(np.float32))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--symbolic", action="store_true",
                        help="a symbolic batch dim, and datasets of 150/7/1 rows")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("onnxcc")
    parser.add_argument("work")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    onnxcc, work, only = args.onnxcc, args.work, set(args.names)
    failed = 0
    for name, model, (x, y) in cases():
        if only and name not in only:
            continue
        if isinstance(x, list):
            # Maps (DictVectorizer): one map per dataset, three rows.
            model.fit(x, y)
            d = os.path.join(work, name)
            os.makedirs(d, exist_ok=True)
            save(sklearn_to_onnx.convert(model, 1, 0), os.path.join(d, "model.onnx"))
            for k, row in enumerate([0, 61, 149]):
                data = os.path.join(d, "data", "test_data_set_%d" % k)
                os.makedirs(data, exist_ok=True)
                write_map(os.path.join(data, "input_0.pb"), x[row])
                write(os.path.join(data, "output_0.pb"), labels(model.predict([x[row]])))
                write(os.path.join(data, "output_1.pb"),
                      model.predict_proba([x[row]]).astype(np.float32))
            # onnxruntime-node takes no maps: checked against scikit-learn only.
            r = subprocess.run([onnxcc, "verify", os.path.join(d, "model.onnx"),
                                os.path.join(d, "data"), "--rtol", "1e-5", "--atol", "1e-5"],
                               capture_output=True, text=True)
            why = (r.stderr + r.stdout).strip().splitlines()
            print("FAIL %s: %s" % (name, " | ".join(why[-3:])) if r.returncode else "PASS " + name)
            failed += r.returncode != 0
            continue
        x = x.astype(np.float32)
        model.fit(x, y)
        zipmap = name.endswith("_zipmap")
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        save(sklearn_to_onnx.convert(model, "N" if args.symbolic else x.shape[0], x.shape[1],
                                     zipmap=zipmap),
             os.path.join(d, "model.onnx"))
        data = os.path.join(d, "data")
        write_references(os.path.join(data, "test_data_set_0"), model, x, zipmap)
        if args.symbolic:
            write_references(os.path.join(data, "test_data_set_1"), model, x[:7], zipmap)
            write_references(os.path.join(data, "test_data_set_2"), model, x[3:4], zipmap)
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
                                "--rtol", tol, "--atol", tol, "--threads", str(args.threads)],
                               capture_output=True, text=True)
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
