"""Writes a classical-ML benchmark model and its dataset (bench/run.py's
generator interface): MODEL.onnx and test_data_set_0/{input_0,output_0}.pb,
the outputs from the estimator's own predict.

  python3 test/ml/make_bench_model.py rf500|xgb300|svc|logreg BATCH FOLDER

rf500: a RandomForestRegressor of 500 trees of depth 8; xgb300: an
XGBRegressor of 300 rounds of depth 6; both on make_regression (5000 rows,
32 features, fixed seeds); svc: an RBF SVC on make_classification (2000 rows,
32 features, 4 classes); logreg: a LogisticRegression on make_classification
(2000 rows, 256 features, 10 classes); converted by sklearn_to_onnx.py.
"""
import os
import sys

import numpy as np
from onnx import numpy_helper, save

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sklearn_to_onnx  # noqa: E402


def main():
    kind, batch, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    from sklearn.datasets import make_regression
    x, y = make_regression(n_samples=5000, n_features=32, noise=10.0, random_state=0)
    x = x.astype(np.float32)
    y = y / y.std()  # predictions near 1: bench/run.py's parity check is absolute
    if kind == "rf500":
        from sklearn.ensemble import RandomForestRegressor
        model = RandomForestRegressor(n_estimators=500, max_depth=8, random_state=0, n_jobs=2)
    elif kind == "xgb300":
        import xgboost
        model = xgboost.XGBRegressor(n_estimators=300, max_depth=6, random_state=0, n_jobs=2)
    elif kind == "svc":
        from sklearn.datasets import make_classification
        from sklearn.svm import SVC
        x, y = make_classification(n_samples=2000, n_features=32, n_informative=16,
                                   n_classes=4, random_state=0)
        x = x.astype(np.float32)
        model = SVC(kernel="rbf", gamma="scale", decision_function_shape="ovo")
    elif kind == "logreg":
        from sklearn.datasets import make_classification
        from sklearn.linear_model import LogisticRegression
        x, y = make_classification(n_samples=2000, n_features=256, n_informative=40,
                                   n_classes=10, random_state=0)
        x = x.astype(np.float32)
        model = LogisticRegression(max_iter=300)
    else:
        raise SystemExit("unknown model kind '%s' (rf500, xgb300, svc or logreg)" % kind)
    model.fit(x, y)
    rows = x[:batch]
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    save(sklearn_to_onnx.convert(model, batch, x.shape[1]), os.path.join(folder, "model.onnx"))
    if kind == "svc":
        # Labels and the one-vs-one decision values.
        outputs = [("output_0", model.predict(rows).astype(np.int64)),
                   ("output_1", model.decision_function(rows).astype(np.float32))]
    elif kind == "logreg":
        outputs = [("output_0", model.predict(rows).astype(np.int64)),
                   ("output_1", model.predict_proba(rows).astype(np.float32))]
    else:
        outputs = [("output_0", model.predict(rows).astype(np.float32).reshape(-1, 1))]
    for name, array in [("input_0", rows)] + outputs:
        with open(os.path.join(folder, "test_data_set_0", name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(array).SerializeToString())


if __name__ == "__main__":
    main()
