"""A small test-only converter of fitted scikit-learn estimators to ONNX
(ai.onnx.ml operators only), in the form skl2onnx gives them, for comparing
onnxcc's compiled models with the estimators' own predictions.

Supported: DecisionTree/RandomForest/ExtraTrees classifiers and regressors,
GradientBoostingRegressor, LogisticRegression, LinearSVC (multiclass),
LinearRegression, SVC and SVR (each kernel), StandardScaler, MinMaxScaler, Normalizer,
Binarizer, SimpleImputer, and Pipelines of them (transforms then one
predictor); XGBRegressor from its JSON dump, as onnxmltools converts it.
Classifiers have int64 labels, or string labels when the classes are strings
(tree ensembles and LogisticRegression); with zipmap=True the probabilities
are a ZipMap's sequence of maps, as skl2onnx writes them by default.
"""
import numpy as np
from onnx import TensorProto, helper

ML = "ai.onnx.ml"


def _trees_of(model):
    """(trees, scale) of a tree model: each tree's sklearn `tree_`, and the
    factor its leaf values are multiplied by."""
    if hasattr(model, "estimators_"):
        ests = np.asarray(model.estimators_).ravel()
        if hasattr(model, "learning_rate"):
            return [e.tree_ for e in ests], model.learning_rate
        return [e.tree_ for e in ests], 1.0 / len(ests)
    return [model.tree_], 1.0


def _tree_nodes(trees, prefix):
    """The nodes_* attributes of the trees (sklearn splits on x <= threshold,
    a double, for float32 x)."""
    a = {k: [] for k in ["treeids", "nodeids", "featureids", "modes", "values",
                         "truenodeids", "falsenodeids"]}
    for t, tree in enumerate(trees):
        for n in range(tree.node_count):
            leaf = tree.children_left[n] == -1
            a["treeids"].append(t)
            a["nodeids"].append(n)
            a["featureids"].append(0 if leaf else int(tree.feature[n]))
            a["modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["values"].append(0.0 if leaf else float(tree.threshold[n]))
            a["truenodeids"].append(0 if leaf else int(tree.children_left[n]))
            a["falsenodeids"].append(0 if leaf else int(tree.children_right[n]))
    a["values"] = [_below(t) for t in a["values"]]
    return {prefix + k: v for k, v in a.items()}


def _below(t):
    """The largest float32 not above double `t`: for a float32 x, x <= t
    exactly when x <= _below(t) (rounding to nearest could make the
    threshold equal to the value it separates)."""
    f = np.float32(t)
    if float(f) > t:
        f = np.nextafter(f, np.float32(-np.inf))
    return float(f)


def _string_classes(model):
    return not np.issubdtype(np.asarray(model.classes_).dtype, np.number)


def class_labels(model, ints_name):
    """The class label attribute of a classifier: `ints_name` (the int64
    labels' attribute of that op) or classlabels_strings."""
    if _string_classes(model):
        return {"classlabels_strings": [str(c) for c in model.classes_]}
    return {ints_name: [int(c) for c in model.classes_]}


def tree_classifier(model, x, y):
    trees, scale = _trees_of(model)
    classes = model.classes_
    attrs = _tree_nodes(trees, "nodes_")
    ct, cn, ci, cw = [], [], [], []
    binary = len(classes) == 2
    for t, tree in enumerate(trees):
        for n in range(tree.node_count):
            if tree.children_left[n] != -1:
                continue
            v = tree.value[n][0]
            p = v / v.sum()
            # Two classes: one vote, the positive class's probability, for
            # class id 0 (ONNX Runtime then writes [1 - p, p]).
            for k in ([1] if binary else range(len(classes))):
                ct.append(t)
                cn.append(n)
                ci.append(0 if binary else k)
                cw.append(float(p[k] * scale))
    attrs.update(class_treeids=ct, class_nodeids=cn, class_ids=ci,
                 class_weights=cw, post_transform="NONE",
                 **class_labels(model, "classlabels_int64s"))
    return [helper.make_node("TreeEnsembleClassifier", [x], [y, y + "_scores"], domain=ML,
                             **attrs)], [y, y + "_scores"]


def tree_regressor(model, x, y):
    trees, scale = _trees_of(model)
    attrs = _tree_nodes(trees, "nodes_")
    tt, tn, ti, tw = [], [], [], []
    for t, tree in enumerate(trees):
        for n in range(tree.node_count):
            if tree.children_left[n] == -1:
                tt.append(t)
                tn.append(n)
                ti.append(0)
                tw.append(float(tree.value[n][0][0] * scale))
    attrs.update(target_treeids=tt, target_nodeids=tn, target_ids=ti,
                 target_weights=tw, n_targets=1, aggregate_function="SUM",
                 post_transform="NONE")
    if hasattr(model, "init_"):  # gradient boosting: the initial prediction
        init = model.init_.predict(np.zeros((1, model.n_features_in_)))
        attrs["base_values"] = [float(np.ravel(init)[0])]
    return [helper.make_node("TreeEnsembleRegressor", [x], [y], domain=ML, **attrs)], [y]


def logistic_regression(model, x, y):
    coef = model.coef_.astype(np.float64)
    binary = coef.shape[0] == 1
    attrs = dict(coefficients=coef.ravel().tolist(), intercepts=model.intercept_.tolist(),
                 post_transform="LOGISTIC" if binary else "SOFTMAX", multi_class=0,
                 **class_labels(model, "classlabels_ints"))
    return [helper.make_node("LinearClassifier", [x], [y, y + "_scores"], domain=ML,
                             **attrs)], [y, y + "_scores"]


def linear_svc(model, x, y):
    """LinearSVC (more than two classes): LinearClassifier scores are its
    decision_function."""
    return [helper.make_node("LinearClassifier", [x], [y, y + "_scores"], domain=ML,
                             coefficients=model.coef_.ravel().tolist(),
                             intercepts=model.intercept_.tolist(),
                             classlabels_ints=[int(c) for c in model.classes_],
                             post_transform="NONE")], [y, y + "_scores"]


def linear_regression(model, x, y):
    coef = np.atleast_2d(model.coef_)
    return [helper.make_node("LinearRegressor", [x], [y], domain=ML,
                             coefficients=coef.ravel().tolist(),
                             intercepts=np.atleast_1d(model.intercept_).tolist(),
                             targets=coef.shape[0])], [y]


def scaler(model, x, y):
    if hasattr(model, "mean_"):  # StandardScaler
        offset, scale = model.mean_, 1.0 / model.scale_
    else:  # MinMaxScaler: x * scale_ + min_ = (x + min_ / scale_) * scale_
        offset, scale = -model.min_ / model.scale_, model.scale_
    return [helper.make_node("Scaler", [x], [y], domain=ML, offset=offset.tolist(),
                             scale=scale.tolist())], [y]


def normalizer(model, x, y):
    return [helper.make_node("Normalizer", [x], [y], domain=ML,
                             norm=model.norm.upper())], [y]


def binarizer(model, x, y):
    return [helper.make_node("Binarizer", [x], [y], domain=ML,
                             threshold=float(model.threshold))], [y]


def imputer(model, x, y):
    return [helper.make_node("Imputer", [x], [y], domain=ML,
                             imputed_value_floats=model.statistics_.tolist(),
                             replaced_value_float=float("nan"))], [y]


def xgboost_regressor(model, x, y):
    """An XGBRegressor from its booster's JSON dump, as onnxmltools converts
    it: x < split_condition goes to `yes`, a missing value to `missing`, and
    base_score is the base value."""
    import json
    booster = model.get_booster()
    param = json.loads(booster.save_config())["learner"]["learner_model_param"]
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                         "nodes_values", "nodes_truenodeids", "nodes_falsenodeids",
                         "nodes_missing_value_tracks_true", "target_treeids", "target_nodeids",
                         "target_ids", "target_weights"]}

    def visit(t, node):
        a["nodes_treeids"].append(t)
        a["nodes_nodeids"].append(node["nodeid"])
        if "leaf" in node:
            for k, v in [("featureids", 0), ("modes", "LEAF"), ("values", 0.0),
                         ("truenodeids", 0), ("falsenodeids", 0),
                         ("missing_value_tracks_true", 0)]:
                a["nodes_" + k].append(v)
            a["target_treeids"].append(t)
            a["target_nodeids"].append(node["nodeid"])
            a["target_ids"].append(0)
            a["target_weights"].append(float(node["leaf"]))
            return
        a["nodes_featureids"].append(int(node["split"][1:]))
        a["nodes_modes"].append("BRANCH_LT")
        a["nodes_values"].append(float(node["split_condition"]))
        a["nodes_truenodeids"].append(node["yes"])
        a["nodes_falsenodeids"].append(node["no"])
        a["nodes_missing_value_tracks_true"].append(int(node["missing"] == node["yes"]))
        for child in node["children"]:
            visit(t, child)

    for t, dump in enumerate(booster.get_dump(dump_format="json")):
        visit(t, json.loads(dump))
    return [helper.make_node("TreeEnsembleRegressor", [x], [y], domain=ML, n_targets=1,
                             base_values=[float(param["base_score"])], **a)], [y]


def svr(model, x, y):
    """SVR: its support vectors, dual coefficients and kernel parameters."""
    return [helper.make_node(
        "SVMRegressor", [x], [y], domain=ML, kernel_type=model.kernel.upper(),
        kernel_params=[float(model._gamma), float(model.coef0), float(model.degree)],
        n_supports=int(model.support_vectors_.shape[0]),
        support_vectors=model.support_vectors_.ravel().tolist(),
        coefficients=model.dual_coef_.ravel().tolist(),
        rho=[float(model.intercept_[0])])], [y]


def svc(model, x, y):
    """SVC: support vectors grouped by class, libsvm's one-vs-one dual
    coefficients and intercepts (scikit-learn negates its public ones for two
    classes: the private _dual_coef_/_intercept_ keep libsvm's signs), and
    Platt's pairwise sigmoids when it was fitted with probability=True."""
    attrs = dict(kernel_type=model.kernel.upper(),
                 kernel_params=[float(model._gamma), float(model.coef0), float(model.degree)],
                 vectors_per_class=[int(n) for n in model.n_support_],
                 support_vectors=model.support_vectors_.ravel().tolist(),
                 coefficients=model._dual_coef_.ravel().tolist(),
                 rho=model._intercept_.tolist(),
                 classlabels_ints=[int(c) for c in model.classes_])
    if model.probability:
        attrs.update(prob_a=model.probA_.tolist(), prob_b=model.probB_.tolist())
    return [helper.make_node("SVMClassifier", [x], [y, y + "_scores"], domain=ML,
                             **attrs)], [y, y + "_scores"]


CONVERTERS = {
    "SVC": svc,
    "SVR": svr,
    "LinearSVC": linear_svc,
    "XGBRegressor": xgboost_regressor,
    "DecisionTreeClassifier": tree_classifier, "RandomForestClassifier": tree_classifier,
    "ExtraTreesClassifier": tree_classifier,
    "DecisionTreeRegressor": tree_regressor, "RandomForestRegressor": tree_regressor,
    "ExtraTreesRegressor": tree_regressor, "GradientBoostingRegressor": tree_regressor,
    "LogisticRegression": logistic_regression, "LinearRegression": linear_regression,
    "StandardScaler": scaler, "MinMaxScaler": scaler, "Normalizer": normalizer,
    "Binarizer": binarizer, "SimpleImputer": imputer,
}


def convert(model, rows, features, opset=3, zipmap=False):
    """An ONNX model of `model` for a float input `X` [rows, features]; its
    outputs are the predictor's (label and scores for classifiers; with
    `zipmap`, label and a ZipMap of the probabilities, `output_probability`)."""
    steps = [s for _, s in model.steps] if hasattr(model, "steps") else [model]
    nodes, current = [], "X"
    for i, step in enumerate(steps):
        fn = CONVERTERS[type(step).__name__]
        made, outs = fn(step, current, "step%d" % i if i + 1 < len(steps) else "Y")
        nodes += made
        current = outs[0]
    last = steps[-1]
    if hasattr(last, "classes_"):
        n = len(last.classes_)
        if type(last).__name__ == "SVC" and not last.probability:
            n = n * (n - 1) // 2 if n > 2 else 2  # a decision value per pair
        strings = _string_classes(last)
        label_type = TensorProto.STRING if strings else TensorProto.INT64
        outputs = [helper.make_tensor_value_info("Y", label_type, [rows]),
                   helper.make_tensor_value_info("Y_scores", TensorProto.FLOAT, [rows, n])]
        if zipmap:
            nodes.append(helper.make_node("ZipMap", ["Y_scores"], ["output_probability"],
                                          domain=ML,
                                          **class_labels(last, "classlabels_int64s")))
            maps = helper.TypeProto()
            entry = maps.sequence_type.elem_type.map_type
            entry.key_type = label_type
            entry.value_type.tensor_type.elem_type = TensorProto.FLOAT
            outputs[1] = helper.make_value_info("output_probability", maps)
    elif type(last).__name__ in ("StandardScaler", "MinMaxScaler", "Normalizer",
                                 "Binarizer", "SimpleImputer"):
        outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [rows, features])]
    else:
        outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [rows, 1])]
    graph = helper.make_graph(nodes, "sklearn",
                              [helper.make_tensor_value_info("X", TensorProto.FLOAT,
                                                             [rows, features])], outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, opset)],
                             producer_name="onnxcc-test-ml")
