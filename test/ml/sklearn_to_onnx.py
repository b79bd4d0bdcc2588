"""A small test-only converter of fitted scikit-learn estimators to ONNX
(ai.onnx.ml operators only), in the form skl2onnx gives them, for comparing
onnxcc's compiled models with the estimators' own predictions.

Supported: DecisionTree/RandomForest/ExtraTrees classifiers and regressors,
GradientBoosting and HistGradientBoosting classifiers and regressors,
LogisticRegression, LinearSVC (multiclass),
LinearRegression, SVC and SVR (each kernel), StandardScaler, MinMaxScaler, Normalizer,
Binarizer, SimpleImputer, OneHotEncoder (of integer-valued float features; the
only converter here that needs ai.onnx operators: Cast, Concat, Reshape, as
skl2onnx writes it), and Pipelines of them (transforms then one
predictor); XGBRegressor and XGBClassifier from their JSON dumps, as
onnxmltools converts them.
A pipeline may start with a DictVectorizer (its input is then one map from
feature name to float, as skl2onnx writes it).
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
    if hasattr(model, "init_"):
        return gradient_boosting_classifier(model, x, y)
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


def gradient_boosting_classifier(model, x, y):
    """GradientBoostingClassifier as skl2onnx converts it: the trees' leaf
    values times the learning rate are the raw scores, the init estimator's
    raw prediction the base values; two classes: one tree per stage, all for
    class id 0, one base value, LOGISTIC (ONNX Runtime's binary rule then
    writes [1 - p, p] and picks the second label when the score is > 0, as
    scikit-learn's argmax of [1 - expit(s), expit(s)] does); more: a tree per stage and class (estimators_
    [stage, class], so tree i is class i % K), SOFTMAX."""
    trees, scale = _trees_of(model)
    k = len(model.classes_)
    per_stage = 1 if k == 2 else k
    init = model._raw_predict_init(np.zeros((1, model.n_features_in_), np.float32)).ravel()
    attrs = _tree_nodes(trees, "nodes_")
    ct, cn, ci, cw = [], [], [], []
    for t, tree in enumerate(trees):
        for n in range(tree.node_count):
            if tree.children_left[n] == -1:
                ct.append(t)
                cn.append(n)
                ci.append(t % per_stage)
                cw.append(float(tree.value[n][0][0] * scale))
    attrs.update(class_treeids=ct, class_nodeids=cn, class_ids=ci, class_weights=cw,
                 base_values=[float(v) for v in init],
                 post_transform="LOGISTIC" if k == 2 else "SOFTMAX",
                 **class_labels(model, "classlabels_int64s"))
    return [helper.make_node("TreeEnsembleClassifier", [x], [y, y + "_scores"], domain=ML,
                             **attrs)], [y, y + "_scores"]


def _hist_trees(model):
    """The nodes_* attributes and the leaves (tree, node, class id, value) of
    a HistGradientBoosting model: `_predictors[iteration][k]`, tree
    iteration * K + k for class k. Its predictors compare the float64 input
    with x <= num_threshold, a float64 bin boundary, so for a float32 input
    BRANCH_LEQ on the largest float32 not above it is the same split; a NaN
    goes left when missing_go_to_left (the true branch), and the leaf values
    already include the learning rate."""
    a = {k: [] for k in ["treeids", "nodeids", "featureids", "modes", "values",
                         "truenodeids", "falsenodeids", "missing_value_tracks_true"]}
    leaves = []
    per_iteration = len(model._predictors[0])
    for i, predictors in enumerate(model._predictors):
        for k, predictor in enumerate(predictors):
            t = i * per_iteration + k
            for n, node in enumerate(predictor.nodes):
                leaf = bool(node["is_leaf"])
                if not leaf and node["is_categorical"]:
                    raise ValueError("categorical splits are not converted")
                a["treeids"].append(t)
                a["nodeids"].append(n)
                a["featureids"].append(0 if leaf else int(node["feature_idx"]))
                a["modes"].append("LEAF" if leaf else "BRANCH_LEQ")
                a["values"].append(0.0 if leaf else _below(float(node["num_threshold"])))
                a["truenodeids"].append(0 if leaf else int(node["left"]))
                a["falsenodeids"].append(0 if leaf else int(node["right"]))
                a["missing_value_tracks_true"].append(
                    0 if leaf else int(node["missing_go_to_left"]))
                if leaf:
                    leaves.append((t, n, k, float(node["value"])))
    return {"nodes_" + k: v for k, v in a.items()}, leaves


def hist_gradient_boosting_classifier(model, x, y):
    """HistGradientBoostingClassifier: its baseline (the raw prediction
    before any tree) is the base values, then LOGISTIC (two classes, one tree
    per iteration, class id 0) or SOFTMAX (a tree per iteration and class), as
    for GradientBoostingClassifier."""
    attrs, leaves = _hist_trees(model)
    k = len(model.classes_)
    attrs.update(class_treeids=[l[0] for l in leaves], class_nodeids=[l[1] for l in leaves],
                 class_ids=[l[2] for l in leaves], class_weights=[l[3] for l in leaves],
                 base_values=[float(v) for v in np.ravel(model._baseline_prediction)],
                 post_transform="LOGISTIC" if k == 2 else "SOFTMAX",
                 **class_labels(model, "classlabels_int64s"))
    return [helper.make_node("TreeEnsembleClassifier", [x], [y, y + "_scores"], domain=ML,
                             **attrs)], [y, y + "_scores"]


def hist_gradient_boosting_regressor(model, x, y):
    """HistGradientBoostingRegressor (squared error: the identity link)."""
    attrs, leaves = _hist_trees(model)
    attrs.update(target_treeids=[l[0] for l in leaves], target_nodeids=[l[1] for l in leaves],
                 target_ids=[0 for _ in leaves], target_weights=[l[3] for l in leaves],
                 n_targets=1, aggregate_function="SUM", post_transform="NONE",
                 base_values=[float(np.ravel(model._baseline_prediction)[0])])
    return [helper.make_node("TreeEnsembleRegressor", [x], [y], domain=ML, **attrs)], [y]


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


def _xgboost_trees(model, prefix, classes=1):
    """(attributes, base_score) of an XGBoost model from its booster's JSON
    dump, as onnxmltools converts it: x < split_condition goes to `yes`, a
    missing value to `missing`; the leaves are `prefix`'s weights (target_ or
    class_), tree t for class t % `classes` (XGBoost's trees are per round
    then per class)."""
    import json
    booster = model.get_booster()
    param = json.loads(booster.save_config())["learner"]["learner_model_param"]
    a = {k: [] for k in ["nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                         "nodes_values", "nodes_truenodeids", "nodes_falsenodeids",
                         "nodes_missing_value_tracks_true", prefix + "treeids",
                         prefix + "nodeids", prefix + "ids", prefix + "weights"]}

    def visit(t, node):
        a["nodes_treeids"].append(t)
        a["nodes_nodeids"].append(node["nodeid"])
        if "leaf" in node:
            for k, v in [("featureids", 0), ("modes", "LEAF"), ("values", 0.0),
                         ("truenodeids", 0), ("falsenodeids", 0),
                         ("missing_value_tracks_true", 0)]:
                a["nodes_" + k].append(v)
            a[prefix + "treeids"].append(t)
            a[prefix + "nodeids"].append(node["nodeid"])
            a[prefix + "ids"].append(t % classes)
            a[prefix + "weights"].append(float(node["leaf"]))
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
    return a, float(param["base_score"])


def xgboost_regressor(model, x, y):
    """An XGBRegressor: base_score is the base value."""
    a, base_score = _xgboost_trees(model, "target_")
    return [helper.make_node("TreeEnsembleRegressor", [x], [y], domain=ML, n_targets=1,
                             base_values=[base_score], **a)], [y]


def xgboost_classifier(model, x, y):
    """An XGBClassifier as onnxmltools converts it. binary:logistic: every
    tree for class id 0, LOGISTIC, and base_score, a probability, becomes
    the margin logit(base_score) (onnxmltools leaves base_values out when it
    is 0.5, whose logit is 0); multi:softprob: tree t for class t % K,
    SOFTMAX, base_score for every class (a constant shift softmax ignores)."""
    k = len(model.classes_)
    a, base_score = _xgboost_trees(model, "class_", 1 if k == 2 else k)
    if k == 2:
        a["post_transform"] = "LOGISTIC"
        if base_score != 0.5:
            a["base_values"] = [float(-np.log(1 / np.float32(base_score) - 1))]
    else:
        a["post_transform"] = "SOFTMAX"
        a["base_values"] = [base_score] * k
    return [helper.make_node("TreeEnsembleClassifier", [x], [y, y + "_scores"], domain=ML,
                             classlabels_int64s=[int(c) for c in model.classes_], **a)], \
        [y, y + "_scores"]


def one_hot_encoder(model, x, y):
    """OneHotEncoder of integer-valued float features, as skl2onnx converts
    it: per column, ArrayFeatureExtractor (a scalar index initializer gives
    [N, 1]), Cast to int64 (the float input is cast, as skl2onnx does, and
    truncated, which keeps integer values), OneHotEncoder of that column's
    categories ([N, 1, C]; zeros=1 with handle_unknown='ignore': an unknown
    value is all zeros, as scikit-learn writes it), then Concat on axis 2 and
    Reshape to [N, sum of C]. Returns a third item, the initializers."""
    nodes, outs, inits = [], [], []
    for j, cats in enumerate(model.categories_):
        index, column, ints, hot = ["%s_%s%d" % (y, w, j) for w in ["index", "col", "int", "ohe"]]
        inits.append(helper.make_tensor(index, TensorProto.INT64, [], [j]))
        nodes.append(helper.make_node("ArrayFeatureExtractor", [x, index], [column], domain=ML))
        nodes.append(helper.make_node("Cast", [column], [ints], to=TensorProto.INT64))
        nodes.append(helper.make_node("OneHotEncoder", [ints], [hot], domain=ML,
                                      cats_int64s=[int(c) for c in cats],
                                      zeros=0 if model.handle_unknown == "error" else 1))
        outs.append(hot)
    width = sum(len(c) for c in model.categories_)
    inits.append(helper.make_tensor(y + "_shape", TensorProto.INT64, [2], [-1, width]))
    nodes.append(helper.make_node("Concat", outs, [y + "_concat"], axis=2))
    nodes.append(helper.make_node("Reshape", [y + "_concat", y + "_shape"], [y]))
    return nodes, [y], inits


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


def dict_vectorizer(model, x, y):
    """DictVectorizer (dense): a map from feature name to float, one row,
    [1, features] in the model's column order (feature_names_)."""
    return [helper.make_node("DictVectorizer", [x], [y], domain=ML,
                             string_vocabulary=list(model.feature_names_))], [y]


CONVERTERS = {
    "DictVectorizer": dict_vectorizer,
    "SVC": svc,
    "SVR": svr,
    "LinearSVC": linear_svc,
    "XGBRegressor": xgboost_regressor, "XGBClassifier": xgboost_classifier,
    "GradientBoostingClassifier": tree_classifier,
    "HistGradientBoostingClassifier": hist_gradient_boosting_classifier,
    "HistGradientBoostingRegressor": hist_gradient_boosting_regressor,
    "OneHotEncoder": one_hot_encoder,
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
    # A DictVectorizer first: X is one map, feature name -> float.
    takes_map = type(steps[0]).__name__ == "DictVectorizer"
    if takes_map:
        rows = 1
    nodes, inits, current = [], [], "X"
    for i, step in enumerate(steps):
        fn = CONVERTERS[type(step).__name__]
        made = fn(step, current, "step%d" % i if i + 1 < len(steps) else "Y")
        nodes += made[0]
        inits += made[2] if len(made) > 2 else []
        current = made[1][0]
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
    if takes_map:
        map_type = helper.TypeProto()
        map_type.map_type.key_type = TensorProto.STRING
        map_type.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
        x = helper.make_value_info("X", map_type)
    else:
        x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [rows, features])
    graph = helper.make_graph(nodes, "sklearn", [x], outputs, initializer=inits)
    imports = [helper.make_opsetid(ML, opset)]
    if any(n.domain == "" for n in nodes):  # OneHotEncoder's Cast, Concat, Reshape
        imports.append(helper.make_opsetid("", 15))
    return helper.make_model(graph, opset_imports=imports, producer_name="onnxcc-test-ml")
